/** The list of envelopes and the draft edits the console needs (issue 14). Handlers stay thin. */
import { detachDocument } from '../../domain/envelopes/detach-document.js';
import { listEnvelopes } from '../../domain/envelopes/list-envelopes.js';
import { patchEnvelope } from '../../domain/envelopes/patch-envelope.js';
import { removeRecipient } from '../../domain/envelopes/remove-recipient.js';
import { updateRecipient } from '../../domain/envelopes/update-recipient.js';
import type { Context } from '../../domain/context.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { mineFilter } from '../../http/mine.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopePatchBody, EnvelopeRecipientParams, RecipientPatchBody } from '../../http/schemas/envelope-edits.js';
import { EnvelopeListQuery, EnvelopeListResponse } from '../../http/schemas/envelope-list.js';
import {
  EnvelopeDocumentParams,
  EnvelopeParams,
  EnvelopeResponse,
  RecipientResponse,
} from '../../http/schemas/envelopes.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

const tags = ['envelopes'];

export function envelopeEditRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);
  // RFC 7396's own media type, parsed as JSON (shared with PATCH /templates in this scope).
  if (!app.hasContentTypeParser('application/merge-patch+json')) {
    app.addContentTypeParser(
      'application/merge-patch+json',
      { parseAs: 'string' },
      app.getDefaultJsonParser('error', 'error'),
    );
  }

  app.get(
    '/envelopes',
    {
      onRequest,
      schema: {
        operationId: 'listEnvelopes',
        tags,
        summary:
          'List envelopes, newest first: cursor paging; filters status (one or several), q (title, external_id, recipient names and e-mails, from a word start), created_from/created_to, template_id, bulk_send_id, mine (login tokens only)',
        security: API_KEY_OR_LOGIN,
        querystring: EnvelopeListQuery,
        response: { 200: EnvelopeListResponse, ...problems(401, 422) },
      },
    },
    (request) => {
      const { mine, ...query } = request.query;
      return listEnvelopes(forCaller(ctx, request), accountOf(request), { ...query, ...mineFilter(request, mine) });
    },
  );

  app.patch(
    '/envelopes/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateEnvelope',
        tags,
        summary:
          'Change a draft: title, message, routing_order, expire_in_days, redirect_url, metadata, external_id (JSON Merge Patch); 409 envelope_not_draft once sent',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        body: {
          content: {
            'application/merge-patch+json': { schema: EnvelopePatchBody },
            'application/json': { schema: EnvelopePatchBody },
          },
        },
        response: { 200: EnvelopeResponse, ...problems(401, 404, 409, 415, 422) },
      },
    },
    (request) =>
      patchEnvelope(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        request.body as Record<string, unknown>,
      ),
  );

  app.patch(
    '/envelopes/:id/recipients/:recipient_id',
    {
      onRequest,
      schema: {
        operationId: 'updateRecipient',
        tags,
        summary:
          'Change a recipient of a draft: name, email, role, signature_method, sequence (the recipient and DSC rules hold; placed fields must stay valid)',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeRecipientParams,
        body: {
          content: {
            'application/merge-patch+json': { schema: RecipientPatchBody },
            'application/json': { schema: RecipientPatchBody },
          },
        },
        response: { 200: RecipientResponse, ...problems(401, 404, 409, 415, 422) },
      },
    },
    (request) =>
      updateRecipient(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        request.params.recipient_id,
        request.body as Record<string, never>,
      ),
  );

  app.delete(
    '/envelopes/:id/recipients/:recipient_id',
    {
      onRequest,
      schema: {
        operationId: 'removeRecipient',
        tags,
        summary: 'Remove a recipient from a draft, with the fields placed for them; answers the envelope',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeRecipientParams,
        response: { 200: EnvelopeResponse, ...problems(401, 404, 409) },
      },
    },
    (request) =>
      removeRecipient(forCaller(ctx, request), accountOf(request), request.params.id, request.params.recipient_id),
  );

  app.delete(
    '/envelopes/:id/documents/:document_id',
    {
      onRequest,
      schema: {
        operationId: 'removeDocument',
        tags,
        summary: 'Detach a document from a draft, with its fields (the workspace document stays); answers the envelope',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeDocumentParams,
        response: { 200: EnvelopeResponse, ...problems(401, 404, 409) },
      },
    },
    (request) =>
      detachDocument(forCaller(ctx, request), accountOf(request), request.params.id, request.params.document_id),
  );
}
