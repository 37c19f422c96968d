/** Sending and stopping envelopes. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { sendEnvelope } from '../../domain/workflow/send-envelope.js';
import { voidEnvelope } from '../../domain/workflow/void-envelope.js';
import { remindRecipients } from '../../domain/workflow/remind.js';
import { envelopeAuditTrail } from '../../domain/envelopes/audit-trail.js';
import { completionCertificateFile } from '../../domain/envelopes/completion-certificate.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopeParams, EnvelopeStatusResponse } from '../../http/schemas/envelopes.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';

export function workflowRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);

  app.post(
    '/envelopes/:id/send',
    {
      onRequest,
      schema: {
        operationId: 'sendEnvelope',
        tags: ['envelopes'],
        summary: 'Send a draft: prepares the form fields in the PDFs and starts routing',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: { 200: EnvelopeStatusResponse, ...problems(401, 404, 409, 422) },
      },
    },
    (request) => sendEnvelope(forCaller(ctx, request), accountOf(request), request.params.id),
  );

  app.post(
    '/envelopes/:id/remind',
    {
      onRequest,
      schema: {
        operationId: 'remindRecipients',
        tags: ['envelopes'],
        summary: 'Mail active recipients again (at most once per recipient per hour)',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: {
          200: Type.Object({
            reminded: Type.Array(Type.Object({ recipient_id: Type.String(), email: Type.String() })),
            skipped: Type.Array(
              Type.Object({
                recipient_id: Type.String(),
                email: Type.String(),
                reason: Type.String(),
                next_reminder_at: Type.String({ format: 'date-time' }),
              }),
            ),
          }),
          ...problems(401, 404, 409),
        },
      },
    },
    (request) => remindRecipients(forCaller(ctx, request), accountOf(request), request.params.id),
  );

  app.get(
    '/envelopes/:id/audit-trail',
    {
      onRequest,
      schema: {
        operationId: 'getAuditTrail',
        tags: ['envelopes'],
        summary: 'The hash-chained audit trail (JSON), with the result of checking the chain',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: {
          200: Type.Object({
            envelope_id: Type.String(),
            chain: Type.Object({
              ok: Type.Boolean({
                description: 'every row is in place and hashes to its hash, each chained to the one before',
              }),
              count: Type.Integer({ description: 'rows checked' }),
              head_hash: Type.Union([Type.String(), Type.Null()], { description: 'hash of the last row when intact' }),
              first_bad_seq: Type.Union([Type.Integer(), Type.Null()], {
                description: 'the first row that fails the check; null when ok',
              }),
              problem: Type.Union([Type.String(), Type.Null()], {
                description: 'what is wrong there, for people; null when ok',
              }),
            }),
            events: Type.Array(Type.Object({}, { additionalProperties: true }), {
              description: 'oldest first: seq, at, actor_type, actor_id, action, details, prev_hash, hash',
            }),
          }),
          ...problems(401, 404),
        },
      },
    },
    (request) => envelopeAuditTrail(forCaller(ctx, request), accountOf(request), request.params.id),
  );

  app.get(
    '/envelopes/:id/audit-trail/certificate',
    {
      onRequest,
      schema: {
        operationId: 'getCompletionCertificate',
        tags: ['envelopes'],
        summary: 'The certificate of completion: a separate, sealed PDF of the audit trail',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: {
          200: pdfResponse('the certificate of completion (PDF)', ['ETag', 'Content-Disposition']),
          ...problems(401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const certificate = await completionCertificateFile(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
      );
      return sendPdf(reply, { bytes: certificate.bytes, sha256: certificate.sha256, filename: certificate.filename });
    },
  );

  app.post(
    '/envelopes/:id/void',
    {
      onRequest,
      schema: {
        operationId: 'voidEnvelope',
        tags: ['envelopes'],
        summary: 'Void a draft or an envelope in progress',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000 }) }),
        response: { 200: EnvelopeStatusResponse, ...problems(401, 404, 409, 422) },
      },
    },
    (request) => voidEnvelope(forCaller(ctx, request), accountOf(request), request.params.id, request.body.reason),
  );
}
