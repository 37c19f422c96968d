/** Sending and stopping envelopes. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { sendEnvelope } from '../../domain/workflow/send-envelope.js';
import { voidEnvelope } from '../../domain/workflow/void-envelope.js';
import { accountOf, requireApiKey } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopeParams, EnvelopeStatusResponse } from '../../http/schemas/envelopes.js';
import type { App } from '../types.js';

const security = [{ apiKey: [] }];

export function workflowRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);

  app.post('/envelopes/:id/send', {
    onRequest,
    schema: {
      tags: ['envelopes'],
      summary: 'Send a draft: prepares the form fields in the PDFs and starts routing',
      security,
      params: EnvelopeParams,
      response: { 200: EnvelopeStatusResponse, ...problems(401, 404, 409, 422) },
    },
  }, (request) => sendEnvelope(ctx, accountOf(request), request.params.id));

  app.post('/envelopes/:id/void', {
    onRequest,
    schema: {
      tags: ['envelopes'],
      summary: 'Void a draft or an envelope in progress',
      security,
      params: EnvelopeParams,
      body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000 }) }),
      response: { 200: EnvelopeStatusResponse, ...problems(401, 404, 409, 422) },
    },
  }, (request) => voidEnvelope(ctx, accountOf(request), request.params.id, request.body.reason));
}
