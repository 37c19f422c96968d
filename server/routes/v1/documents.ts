/** Workspace documents: upload once, attach to envelopes by document_id. */
import { documentView, findDocument, uploadDocument } from '../../domain/documents/documents.js';
import type { Context } from '../../domain/context.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { readFilePart } from '../../http/multipart.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';
import { problems } from '../../http/schemas/common.js';
import { DocumentBody, DocumentParams, MultipartFile } from '../../http/schemas/documents.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function documentRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);

  app.post(
    '/documents',
    {
      onRequest,
      schema: {
        operationId: 'uploadDocument',
        tags: ['documents'],
        summary: 'Upload a PDF to the workspace',
        security: API_KEY_OR_LOGIN,

        consumes: ['multipart/form-data'],
        body: { content: { 'multipart/form-data': { schema: MultipartFile } } },
        response: { 201: DocumentBody, ...problems(401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw Object.assign(new Error('expected multipart/form-data'), { code: 'FST_INVALID_MULTIPART_CONTENT_TYPE' });
      }
      const file = await readFilePart(request);
      return reply
        .code(201)
        .send(await uploadDocument(forCaller(ctx, request), accountOf(request), file.filename, file.bytes));
    },
  );

  app.get(
    '/documents/:document_id',
    {
      onRequest,
      schema: {
        operationId: 'getDocument',
        tags: ['documents'],
        summary: 'Get a workspace document',
        security: API_KEY_OR_LOGIN,
        params: DocumentParams,
        response: { 200: DocumentBody, ...problems(401, 404, 410) },
      },
    },
    async (request) =>
      documentView(await findDocument(forCaller(ctx, request), accountOf(request), request.params.document_id)),
  );

  app.get(
    '/documents/:document_id/content',
    {
      onRequest,
      schema: {
        operationId: 'getDocumentContent',
        tags: ['documents'],
        summary: 'The uploaded PDF bytes, exactly as stored',
        security: API_KEY_OR_LOGIN,

        params: DocumentParams,
        response: {
          200: pdfResponse('the uploaded PDF; ETag and Repr-Digest carry the SHA-256', ['ETag', 'Repr-Digest']),
          ...problems(401, 404, 410),
        },
      },
    },
    async (request, reply) => {
      const document = await findDocument(forCaller(ctx, request), accountOf(request), request.params.document_id);
      const bytes = await ctx.blobs.get(document.sha256);
      return sendPdf(reply, { bytes, sha256: document.sha256, reprDigest: true });
    },
  );
}
