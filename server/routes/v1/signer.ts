/**
 * The signer API under {api_base}/signing/{token}: used by the hosted signing page and by integrators who
 * build their own. The token in the path is the credential; it is bound to one recipient.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../../domain/context.js';
import { currentDocument } from '../../domain/workflow/current-document.js';
import { finalDocument } from '../../domain/workflow/download.js';
import { approveOrReview, decline, type DecisionResult } from '../../domain/workflow/decide-act.js';
import { resolveSession } from '../../domain/workflow/sessions.js';
import { signerView } from '../../domain/workflow/signer-view.js';
import { problems } from '../../http/schemas/common.js';
import {
  ActBody,
  ActResponse,
  PreparedBody,
  SignerViewResponse,
  TokenDocumentParams,
  TokenParams,
} from '../../http/schemas/signing.js';
import { Type } from 'typebox';
import { PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { acceptPdfBodies } from '../../http/pdf-body.js';
import { SIGN_ACT_BODY_LIMIT } from '../../http/token-limits.js';
import { clientOf, completeAndAnswer } from './signer-answer.js';
import { signElectronically } from '../../domain/workflow/electronic-act.js';
import { acceptTokenSignature, prepareForToken } from '../../domain/workflow/dsc-act.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';

export function signerRoutes(app: App, ctx: Context): void {
  app.get(
    '/signing/:token',
    {
      schema: {
        operationId: 'getSigningView',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'What this recipient sees and may do',
        params: TokenParams,
        response: { 200: SignerViewResponse, ...problems(410) },
      },
    },
    async (request) => signerView(ctx, await resolveSession(ctx, request.params.token)),
  );

  app.get(
    '/signing/:token/documents/:document_id',
    {
      schema: {
        operationId: 'getSigningDocument',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'The current bytes of a document',
        params: TokenDocumentParams,
        response: { 200: pdfResponse('the current PDF; ETag carries the SHA-256', ['ETag']), ...problems(404, 410) },
      },
    },
    async (request, reply) => {
      const session = await resolveSession(ctx, request.params.token);
      const document = await currentDocument(ctx, session.envelopeId, request.params.document_id);
      return sendPdf(reply, { bytes: document.bytes, sha256: document.sha256 });
    },
  );

  // The recipient's own copy of the final documents: the same bytes as the completion mail attaches.
  app.get(
    '/signing/:token/documents/:document_id/download',
    {
      schema: {
        operationId: 'downloadSignerCopy',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'The final signed PDF, once the envelope is completed (also after this recipient acted)',
        params: TokenDocumentParams,
        response: {
          200: pdfResponse('the final signed PDF; ETag and Repr-Digest carry the SHA-256', [
            'ETag',
            'Repr-Digest',
            'Content-Disposition',
            'Cache-Control',
          ]),
          ...problems(404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const session = await resolveSession(ctx, request.params.token, 'download');
      const document = await finalDocument(ctx, session.accountId, session.envelopeId, request.params.document_id);
      return sendPdf(reply, {
        bytes: document.bytes,
        sha256: document.sha256,
        reprDigest: true,
        filename: document.filename,
        noStore: true,
      });
    },
  );

  app.post(
    '/signing/:token',
    {
      bodyLimit: SIGN_ACT_BODY_LIMIT,
      schema: {
        operationId: 'actAsSigner',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'Act: sign, review, approve or decline',
        params: TokenParams,
        body: ActBody,
        response: { 200: ActResponse, ...problems(409, 410, 422) },
      },
    },
    async (request) => {
      const session = await resolveSession(ctx, request.params.token);
      const body = request.body;
      const client = clientOf(request, session);
      let result: DecisionResult;
      if (body.action === 'decline') result = await decline(ctx, session, body.decline_reason, client);
      else if (body.action === 'sign') result = await signElectronically(ctx, session, body, client);
      else result = await approveOrReview(ctx, session, body.action, body, client);
      return completeAndAnswer(ctx, session, result);
    },
  );

  // USB DSC: the desktop signs the prepared bytes with the token and uploads the result.
  const preparedSchema = {
    tags: ['signer'],
    params: TokenDocumentParams,
    response: {
      200: pdfResponse('the prepared PDF; X-Mohar-Signature-Field names the field to sign', [
        'X-Mohar-Signature-Field',
      ]),
      ...problems(404, 409, 410, 422),
    },
  };
  const sendPrepared = async (
    token: string,
    documentId: string,
    fields: Record<string, string | boolean> | undefined,
    reply: import('fastify').FastifyReply,
  ) => {
    const prepared = await prepareForToken(ctx, await resolveSession(ctx, token), documentId, fields);
    return sendPdf(reply, {
      bytes: prepared.bytes,
      headers: { 'X-Mohar-Signature-Field': encodeURIComponent(prepared.fieldName) },
    });
  };
  app.get(
    '/signing/:token/documents/:document_id/prepared',
    {
      schema: {
        operationId: 'getPreparedDocument',
        security: PUBLIC,
        ...preparedSchema,
        summary: 'USB DSC: the bytes the token signs over (your values filled)',
      },
    },
    (request, reply) => sendPrepared(request.params.token, request.params.document_id, undefined, reply),
  );
  app.post(
    '/signing/:token/documents/:document_id/prepared',
    {
      schema: {
        operationId: 'prepareDocumentWithValues',
        security: PUBLIC,
        ...preparedSchema,
        summary: 'USB DSC: as GET, with values for your text fields',
        body: PreparedBody,
      },
    },
    (request, reply) => sendPrepared(request.params.token, request.params.document_id, request.body.fields, reply),
  );

  // The only route that takes a raw PDF body: its own scope, so the PDF parser exists nowhere else.
  void app.register(async (pdfScope: App) => {
    acceptPdfBodies(pdfScope, ctx.config.maxPdfBytes);
    pdfScope.put(
      '/signing/:token/documents/:document_id/signed',
      {
        bodyLimit: ctx.config.maxPdfBytes,
        schema: {
          operationId: 'uploadTokenSignature',
          security: PUBLIC,
          tags: ['signer'],
          summary: 'USB DSC: upload the prepared document signed by the token (application/pdf)',
          description:
            "422 codes: `invalid_signed_document` (the upload changes more than this signature), `dsc_certificate_untrusted` (member `reason`: unknown_issuer, expired, not_yet_valid, revoked, revocation_unknown, not_for_signing; unless the account setting accept_untrusted_dsc), `dsc_identity_mismatch` (neither the certificate's name nor its e-mail is the recipient's, unless the account setting accept_dsc_identity_mismatch; with require_dsc_identity_match the name must match and the e-mail must not differ; members name_match, email_match, certificate_name, certificate_emails). See docs/errors.md.",
          params: TokenDocumentParams,
          // Documented, not validated by schema: the raw bytes are checked by the act itself.
          body: {
            content: { 'application/pdf': { schema: Type.Unsafe({ description: 'the signed PDF, as raw bytes' }) } },
          },
          response: { 200: ActResponse, ...problems(409, 410, 413, 415, 422) },
        },
      },
      async (request) => {
        if (!Buffer.isBuffer(request.body)) {
          throw new MoharError('unsupported_media_type', 'send the signed PDF as application/pdf');
        }
        const session = await resolveSession(ctx, request.params.token);
        const result = await acceptTokenSignature(
          ctx,
          session,
          request.params.document_id,
          request.body,
          clientOf(request, session),
        );
        return completeAndAnswer(ctx, session, result);
      },
    );
  });
}
