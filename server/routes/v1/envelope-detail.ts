/** What the envelope detail page shows beyond GET /envelopes/{id}: the verifier's signature summary. */
import { signatureSummary } from '../../domain/envelopes/signature-summary.js';
import type { Context } from '../../domain/context.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopeDocumentParams } from '../../http/schemas/envelopes.js';
import { SignaturesResponse } from '../../http/schemas/signatures.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function envelopeDetailRoutes(app: App, ctx: Context): void {
  app.get(
    '/envelopes/:id/documents/:document_id/signatures',
    {
      onRequest: requireApiKey(ctx),
      schema: {
        operationId: 'listDocumentSignatures',
        tags: ['envelopes'],
        summary:
          "The signatures in the document's current PDF as our verifier sees them: signer and certificate, time and timestamp, PAdES level, certification, integrity, changes after each, trust where the server knows it",
        security: API_KEY_OR_LOGIN,
        params: EnvelopeDocumentParams,
        response: { 200: SignaturesResponse, ...problems(401, 404, 410, 422, 503) },
      },
    },
    (request) =>
      signatureSummary(forCaller(ctx, request), accountOf(request), request.params.id, request.params.document_id),
  );
}
