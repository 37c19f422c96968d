/** Signing sessions and the final download, for the account (X-Api-Key). */
import type { Context } from '../../domain/context.js';
import { finalDocument } from '../../domain/workflow/download.js';
import { createSigningSession } from '../../domain/workflow/sessions.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopeDocumentParams, EnvelopeParams } from '../../http/schemas/envelopes.js';
import { SigningSessionBody, SigningSessionResponse } from '../../http/schemas/signing.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';

export function signingSessionRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);

  app.post(
    '/envelopes/:id/signing-sessions',
    {
      onRequest,
      schema: {
        operationId: 'createSigningSessions',
        tags: ['signing'],
        summary: 'A short-lived signing URL (15 minutes) for one active recipient',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        body: SigningSessionBody,
        response: { 201: SigningSessionResponse, ...problems(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      // Audited with the session: the console user or the API key that asked for it.
      const by = request.user
        ? { type: 'user' as const, id: request.user.userId }
        : { type: 'api_key' as const, id: request.apiKey?.keyId ?? null };
      return reply
        .code(201)
        .send(
          await createSigningSession(forCaller(ctx, request), accountOf(request), request.params.id, request.body, by),
        );
    },
  );

  app.get(
    '/envelopes/:id/documents/:document_id/download',
    {
      onRequest,
      schema: {
        operationId: 'downloadSignedDocument',
        tags: ['envelopes'],
        summary: 'The exact signed PDF bytes, once the envelope is completed',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeDocumentParams,
        response: {
          200: pdfResponse('the signed PDF; ETag and Repr-Digest carry the SHA-256', [
            'ETag',
            'Repr-Digest',
            'Content-Disposition',
          ]),
          ...problems(401, 404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const document = await finalDocument(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        request.params.document_id,
      );
      return sendPdf(reply, {
        bytes: document.bytes,
        sha256: document.sha256,
        reprDigest: true,
        filename: document.filename,
      });
    },
  );
}
