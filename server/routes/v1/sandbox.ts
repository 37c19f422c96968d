/** The sandbox: mock USB DSC requests for test-mode accounts, signed with an ephemeral test certificate. */
import type { Context } from '../../domain/context.js';
import { createMockRequest } from '../../domain/sandbox/create-request.js';
import { downloadMockRequest, findMockRequest } from '../../domain/sandbox/find-request.js';
import { signWithTestCertificate } from '../../domain/sandbox/mock-sign.js';
import { resolveSession } from '../../domain/workflow/sessions.js';
import { accountOf, requireApiKey } from '../../http/auth-hooks.js';
import { readMultipartForm } from '../../http/multipart.js';
import { problems } from '../../http/schemas/common.js';
import { MockRequestCreated, MockRequestForm, MockRequestParams, MockRequestView } from '../../http/schemas/sandbox.js';
import { ActResponse, TokenParams } from '../../http/schemas/signing.js';
import { API_KEY, PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { clientOf, completeAndAnswer } from './signer-answer.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';

export function sandboxRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx, { keyOnly: true });

  app.post(
    '/sandbox/mock-dsc/requests',
    {
      onRequest,
      schema: {
        operationId: 'createMockDscRequest',
        tags: ['sandbox'],
        summary: 'Create a mock USB DSC request (test key of a test-mode account only)',
        security: API_KEY,
        consumes: ['multipart/form-data'],
        body: { content: { 'multipart/form-data': { schema: MockRequestForm } } },
        response: { 201: MockRequestCreated, ...problems(401, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw Object.assign(new Error('expected multipart/form-data'), { code: 'FST_INVALID_MULTIPART_CONTENT_TYPE' });
      }
      const form = await readMultipartForm(request);
      return reply.code(201).send(await createMockRequest(ctx, request.apiKey, { file: form.file, ...form.fields }));
    },
  );

  app.get(
    '/sandbox/mock-dsc/requests/:public_id',
    {
      onRequest,
      schema: {
        operationId: 'getMockDscRequest',
        tags: ['sandbox'],
        summary: 'A mock request: pending, completed or expired, with the test certificate once signed',
        security: API_KEY,
        params: MockRequestParams,
        response: { 200: MockRequestView, ...problems(401, 404) },
      },
    },
    async (request) => findMockRequest(ctx, accountOf(request), request.params.public_id),
  );

  app.get(
    '/sandbox/mock-dsc/requests/:public_id/download',
    {
      onRequest,
      schema: {
        operationId: 'downloadMockDscRequest',
        tags: ['sandbox'],
        summary: 'The PDF signed with the self-signed test certificate; 409 signing_not_completed before',
        security: API_KEY,
        params: MockRequestParams,
        response: {
          200: pdfResponse('the PDF signed with the test certificate', ['ETag', 'Content-Disposition']),
          ...problems(401, 404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const document = await downloadMockRequest(ctx, accountOf(request), request.params.public_id);
      return sendPdf(reply, { bytes: document.bytes, sha256: document.sha256, filename: document.filename });
    },
  );

  // The signing page's "Sign with a test certificate": the session token is the credential, as for every signer act.
  app.post(
    '/signing/:token/mock-dsc',
    {
      schema: {
        operationId: 'signWithMockDsc',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'Sandbox: sign a mock DSC request with an ephemeral self-signed test certificate',
        params: TokenParams,
        response: { 200: ActResponse, ...problems(403, 409, 410, 422) },
      },
    },
    async (request) => {
      const session = await resolveSession(ctx, request.params.token);
      const result = await signWithTestCertificate(ctx, session, clientOf(request, session));
      return completeAndAnswer(ctx, session, result);
    },
  );
}
