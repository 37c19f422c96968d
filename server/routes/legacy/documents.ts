/** The legacy document API (docs/legacy-api.md): integer document ids over Mohar envelopes. Handlers stay thin. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../../domain/context.js';
import { createLegacyDocument } from '../../domain/legacy/create-document.js';
import { appSignStatus, downloadByLink, downloadFinal, signStatus } from '../../domain/legacy/document-status.js';
import { signingLinksOf } from '../../domain/legacy/signing-links.js';
import type { FinalDocument } from '../../domain/workflow/download.js';
import { accountOf, forCaller, header, requireApiKey } from '../../http/auth-hooks.js';
import { idempotent } from '../../http/idempotency.js';
import { IdempotentHeaders, problems } from '../../http/schemas/common.js';
import {
  AppSignStatusResponse,
  DocIdParams,
  DocIdQuery,
  LegacyCreateBody,
  LegacyCreateResponse,
  SignStatusResponse,
  SigningLinksBody,
  SigningLinksResponse,
  TokenParams,
} from '../../http/schemas/legacy.js';
import { API_KEY, PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { pdfResponse } from '../../http/schemas/responses.js';
import { sendPdf } from '../../http/send-pdf.js';

const Pdf = pdfResponse('the final signed PDF', ['ETag', 'Content-Disposition', 'Cache-Control']);

/** The key in the body must be the key in X-Api-Key (which authenticated the call). */
function checkBodyKey(request: FastifyRequest, bodyKey: string): void {
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(bodyKey), digest(header(request, 'x-api-key') ?? ''))) {
    throw new MoharError('invalid_api_key', 'companyDetails.api_key must be the same key as the X-Api-Key header', {
      errors: [{ path: '/companyDetails/api_key', message: 'does not match X-Api-Key' }],
    });
  }
}

function sendFinal(reply: FastifyReply, pdf: FinalDocument): FastifyReply {
  return sendPdf(reply, { bytes: pdf.bytes, sha256: pdf.sha256, filename: pdf.filename, noStore: true });
}

export function legacyDocumentRoutes(app: App, ctx: Context, legacyBase: string): void {
  const onRequest = requireApiKey(ctx, { keyOnly: true });
  const linkFor = (token: string): string => `${ctx.config.baseUrl}${legacyBase}/document/signed/${token}/`;

  app.post(
    '/document/recipients/create/',
    {
      onRequest,
      schema: {
        operationId: 'createDocumentWithRecipients',
        tags: ['documents'],
        summary:
          'Create a document from a PDF URL with its recipients, and send it (headless with is_mail_required: false)',
        description:
          'The API key goes in X-Api-Key and in companyDetails.api_key. Counts against the monthly call quota (not with test keys). A repeated Idempotency-Key replays the first response for 24 hours.',
        security: API_KEY,
        headers: IdempotentHeaders,
        body: LegacyCreateBody,
        response: { 200: LegacyCreateResponse, ...problems(401, 403, 409, 413, 422, 429) },
      },
    },
    async (request, reply) => {
      checkBodyKey(request, request.body.companyDetails.api_key);
      const key = request.apiKey!;
      await idempotent(ctx, request, reply, 200, () => createLegacyDocument(ctx, key, request.body));
    },
  );

  app.post(
    '/document/signing-links/',
    {
      onRequest,
      schema: {
        operationId: 'createSigningLinks',
        tags: ['documents'],
        summary: 'Fresh signing links for the recipients who still have to act',
        security: API_KEY,
        body: SigningLinksBody,
        response: { 200: SigningLinksResponse, ...problems(401, 403, 404, 422) },
      },
    },
    async (request) => {
      checkBodyKey(request, request.body.companyDetails.api_key);
      return signingLinksOf(forCaller(ctx, request), accountOf(request), request.body.document_id, {
        type: 'api_key',
        id: request.apiKey?.keyId ?? null,
      });
    },
  );

  app.get(
    '/document/app/sign/status/:doc_id/',
    {
      onRequest,
      schema: {
        operationId: 'getDocumentSignStatus',
        tags: ['documents'],
        summary: 'Per-recipient status; signed_doc_url once everyone has signed',
        security: API_KEY,
        params: DocIdParams,
        response: { 200: AppSignStatusResponse, ...problems(401, 403, 404) },
      },
    },
    (request) => appSignStatus(forCaller(ctx, request), accountOf(request), request.params.doc_id, linkFor),
  );

  app.get(
    '/document/sign/status/',
    {
      onRequest,
      schema: {
        operationId: 'getSignStatus',
        tags: ['documents'],
        summary: 'Status word of a document: Uploaded, Sent, Partially signed, Fully signed, Rejected or Cancelled',
        security: API_KEY,
        querystring: DocIdQuery,
        response: { 200: SignStatusResponse, ...problems(401, 403, 404) },
      },
    },
    (request) => signStatus(forCaller(ctx, request), accountOf(request), request.query.doc_id),
  );

  app.get(
    '/document/download/',
    {
      onRequest,
      schema: {
        operationId: 'downloadFinalDocument',
        tags: ['documents'],
        summary: 'The final signed PDF (after every recipient has signed)',
        security: API_KEY,
        querystring: DocIdQuery,
        response: { 200: Pdf, ...problems(401, 403, 404, 409, 410) },
      },
    },
    async (request, reply) =>
      sendFinal(reply, await downloadFinal(forCaller(ctx, request), accountOf(request), request.query.doc_id)),
  );

  app.get(
    '/document/signed/:token/',
    {
      schema: {
        operationId: 'downloadBySignedLink',
        security: PUBLIC,
        tags: ['documents'],
        summary: 'signed_doc_url: the final PDF without a key (the link is the credential; it expires)',
        params: TokenParams,
        response: { 200: Pdf, ...problems(409, 410) },
      },
    },
    async (request, reply) => sendFinal(reply, await downloadByLink(ctx, request.params.token)),
  );
}
