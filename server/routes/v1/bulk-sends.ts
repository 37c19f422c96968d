/** Bulk send (issue 13): one draft (or template version) fanned out into one envelope per row. Handlers stay thin. */
import { jsonWithHeaders } from '../../http/schemas/responses.js';
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import { cancelBulkSend } from '../../domain/bulk/cancel-bulk-send.js';
import { createBulkSend } from '../../domain/bulk/create-bulk-send.js';
import { getBulkSend, listBulkEnvelopes, listBulkSends } from '../../domain/bulk/read-bulk-sends.js';
import { bulkSourceFormat } from '../../domain/bulk/source-format.js';
import { validateBulkSend } from '../../domain/bulk/validate-bulk-send.js';
import type { Context } from '../../domain/context.js';
import { accountOf, forCaller, header, requireApiKey } from '../../http/auth-hooks.js';
import { idempotentInOneCommit } from '../../http/idempotency.js';
import { locationHeader } from '../../http/location.js';
import {
  BulkEnvelopesResponse,
  BulkSendAccepted,
  BulkSendBody,
  BulkSendListResponse,
  BulkSendParams,
  BulkSendResponse,
  BulkSendValidated,
  PageQuery,
  SourceFormatQuery,
  SourceFormatResponse,
} from '../../http/schemas/bulk-sends.js';
import { IdempotentHeaders, problems } from '../../http/schemas/common.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

const tags = ['bulk-sends'];
/** Room for MOHAR_BULK_MAX_ROWS rows of a few recipients and merge values each. */
const BYTES_PER_ROW = 3 * 1024;

export function bulkSendRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);
  const bodyLimit = Math.max(2 * 1024 * 1024, ctx.config.bulkMaxRows * BYTES_PER_ROW);

  app.post(
    '/bulk-sends',
    {
      onRequest,
      attachValidation: true,
      bodyLimit,
      schema: {
        operationId: 'createBulkSend',
        tags,
        summary:
          'Fan a draft envelope (or a template version) out into one envelope per row, sent by a durable job (Idempotency-Key required)',
        security: API_KEY_OR_LOGIN,
        headers: IdempotentHeaders,
        body: BulkSendBody,
        response: {
          202: jsonWithHeaders(BulkSendAccepted, ['Location'], 'the batch is queued; Location is its URL'),
          ...problems(400, 401, 404, 409, 413, 422),
        },
      },
      // The Location of the batch, also on a replayed answer.
      onSend: locationHeader(app.prefix, 'bulk-sends', 'bulk_send_id', 202),
    },
    async (request, reply) => {
      if (request.validationError) throw rowSchemaError(request.validationError);
      const key = header(request, 'idempotency-key');
      if (key === undefined) {
        throw new MoharError(
          'idempotency_key_required',
          'a bulk send needs an Idempotency-Key header (any unique string per intended batch), so a retried call cannot queue a second batch',
        );
      }
      const accountId = accountOf(request);
      const caller = forCaller(ctx, request);
      // The key's row is written in the batch's transaction (crash-safe: issue 33).
      return idempotentInOneCommit(ctx, request, reply, 202, (claim) =>
        createBulkSend(caller, accountId, request.body, key, claim),
      );
    },
  );

  app.post(
    '/bulk-sends/validate',
    {
      onRequest,
      attachValidation: true,
      bodyLimit,
      schema: {
        operationId: 'validateBulkSend',
        tags,
        summary:
          'Check a bulk send body exactly as POST /bulk-sends does (source state, every row) without queueing anything: 200 when it would be accepted, else the same 404/409/422 problems',
        security: API_KEY_OR_LOGIN,
        body: BulkSendBody,
        response: { 200: BulkSendValidated, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    async (request) => {
      if (request.validationError) throw rowSchemaError(request.validationError);
      return validateBulkSend(forCaller(ctx, request), accountOf(request), request.body);
    },
  );

  app.get(
    '/bulk-sends/source-format',
    {
      onRequest,
      schema: {
        operationId: 'getBulkSendSourceFormat',
        tags,
        summary:
          'What rows for a source hold: its recipient slots, its merge fields and a sample CSV (the CSV column format of docs/bulk-send.md)',
        security: API_KEY_OR_LOGIN,
        querystring: SourceFormatQuery,
        response: { 200: SourceFormatResponse, ...problems(400, 401, 404, 409, 422) },
      },
    },
    (request) => bulkSourceFormat(forCaller(ctx, request), accountOf(request), request.query),
  );

  app.get(
    '/bulk-sends',
    {
      onRequest,
      schema: {
        operationId: 'listBulkSends',
        tags,
        summary: 'Bulk sends of the account, newest first',
        security: API_KEY_OR_LOGIN,
        querystring: PageQuery,
        response: { 200: BulkSendListResponse, ...problems(401) },
      },
    },
    (request) => listBulkSends(forCaller(ctx, request), accountOf(request), request.query),
  );

  app.get(
    '/bulk-sends/:id',
    {
      onRequest,
      schema: {
        operationId: 'getBulkSend',
        tags,
        summary: 'A bulk send: status, counts, timestamps and every failed row with its reason',
        security: API_KEY_OR_LOGIN,
        params: BulkSendParams,
        response: { 200: BulkSendResponse, ...problems(401, 404) },
      },
    },
    (request) => getBulkSend(forCaller(ctx, request), accountOf(request), request.params.id),
  );

  app.get(
    '/bulk-sends/:id/envelopes',
    {
      onRequest,
      schema: {
        operationId: 'listBulkSendEnvelopes',
        tags,
        summary: 'The rows of a bulk send with their envelopes, by row_index (cursor paging)',
        security: API_KEY_OR_LOGIN,
        params: BulkSendParams,
        querystring: PageQuery,
        response: { 200: BulkEnvelopesResponse, ...problems(401, 404) },
      },
    },
    (request) => listBulkEnvelopes(forCaller(ctx, request), accountOf(request), request.params.id, request.query),
  );

  app.post(
    '/bulk-sends/:id/cancel',
    {
      onRequest,
      schema: {
        operationId: 'cancelBulkSend',
        tags,
        summary: 'Cancel the rows not yet created; envelopes already made go on',
        security: API_KEY_OR_LOGIN,
        params: BulkSendParams,
        response: { 200: BulkSendResponse, ...problems(401, 404, 409) },
      },
    },
    (request) => cancelBulkSend(forCaller(ctx, request), accountOf(request), request.params.id),
  );
}

/** Schema errors inside /rows/N are row errors: report them all by row index, like the domain's own row checks. */
function rowSchemaError(error: {
  validation?: { instancePath: string; message?: string; params?: unknown }[];
  validationContext?: string;
}): MoharError {
  const items: ErrorItem[] = (error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
    const path = `${v.instancePath}${missing ? `/${missing}` : ''}`;
    const index = /^\/rows\/(\d+)/.exec(path)?.[1];
    return {
      path: path || '/',
      code: (v as { keyword?: string }).keyword ?? 'invalid',
      message: v.message ?? 'is not valid',
      ...(index === undefined ? {} : { index: Number(index) }),
    };
  });
  if (error.validationContext !== 'body' || items.some((i) => i.index === undefined)) {
    return new MoharError('validation_failed', items.map((i) => `${i.path} ${i.message}`).join('; '), {
      errors: items,
    });
  }
  const bad = new Set(items.map((i) => i.index)).size;
  return new MoharError(
    'invalid_rows',
    `${bad} row(s) are not valid; nothing was queued. Row ${items[0]!.index}: ${items[0]!.path} ${items[0]!.message}`,
    { errors: items },
  );
}
