/** Envelope drafts: create, read, status, recipients, documents, fields. Handlers stay thin. */
import { MoharError } from '../../../common/errors.js';
import { addRecipient } from '../../domain/envelopes/add-recipient.js';
import { attachDocument } from '../../domain/envelopes/attach-document.js';
import { createEnvelope, createEnvelopeWithKey } from '../../domain/envelopes/create-envelope.js';
import { envelopeStatus } from '../../domain/envelopes/envelope-status.js';
import { findEnvelope } from '../../domain/envelopes/find-envelope.js';
import { replaceFields } from '../../domain/envelopes/replace-fields.js';
import { loadEnvelopeView } from '../../domain/envelopes/views.js';
import type { Context } from '../../domain/context.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { idempotentInOneCommit } from '../../http/idempotency.js';
import { locationHeader } from '../../http/location.js';
import { jsonWithHeaders } from '../../http/schemas/responses.js';
import { creatorOf } from '../../http/mine.js';
import { readFilePart } from '../../http/multipart.js';
import { IdempotentHeaders, problems } from '../../http/schemas/common.js';
import { AttachDocumentJson, DocumentBody, MultipartFile } from '../../http/schemas/documents.js';
import {
  EnvelopeCreateBody,
  EnvelopeDocumentParams,
  EnvelopeParams,
  EnvelopeResponse,
  EnvelopeStatusResponse,
  RecipientBody,
  RecipientResponse,
} from '../../http/schemas/envelopes.js';
import { FieldsBody, FieldsResponse } from '../../http/schemas/fields.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { envelopeDetailRoutes } from './envelope-detail.js';
import { envelopeEditRoutes } from './envelope-edits.js';

export function envelopeRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);
  envelopeEditRoutes(app, ctx);
  envelopeDetailRoutes(app, ctx);

  app.post(
    '/envelopes',
    {
      onRequest,
      schema: {
        operationId: 'createEnvelope',
        tags: ['envelopes'],
        summary: 'Create a draft envelope',
        security: API_KEY_OR_LOGIN,
        headers: IdempotentHeaders,
        body: EnvelopeCreateBody,
        response: {
          201: jsonWithHeaders(EnvelopeResponse, ['Location'], 'the draft envelope; Location is its URL'),
          ...problems(401, 409, 422),
        },
      },
      onSend: locationHeader(app.prefix, 'envelopes', 'id'),
    },
    async (request, reply) => {
      const caller = forCaller(ctx, request);
      const input = { ...request.body, createdBy: creatorOf(request) };
      // With a key, the key's row is written in the draft's commit (crash-safe: issue 33).
      await idempotentInOneCommit(ctx, request, reply, 201, (claim) =>
        claim
          ? createEnvelopeWithKey(caller, accountOf(request), input, claim)
          : createEnvelope(caller, accountOf(request), input),
      );
    },
  );

  app.get(
    '/envelopes/:id',
    {
      onRequest,
      schema: {
        operationId: 'getEnvelope',
        tags: ['envelopes'],
        summary: 'Get an envelope',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: { 200: EnvelopeResponse, ...problems(401, 404) },
      },
    },
    async (request) => {
      await findEnvelope(forCaller(ctx, request), accountOf(request), request.params.id);
      return loadEnvelopeView(ctx.db, request.params.id);
    },
  );

  app.get(
    '/envelopes/:id/status',
    {
      onRequest,
      schema: {
        operationId: 'getEnvelopeStatus',
        tags: ['envelopes'],
        summary: 'Recipient status of an envelope',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: { 200: EnvelopeStatusResponse, ...problems(401, 404) },
      },
    },
    (request) => envelopeStatus(forCaller(ctx, request), accountOf(request), request.params.id),
  );

  app.post(
    '/envelopes/:id/recipients',
    {
      onRequest,
      schema: {
        operationId: 'addRecipient',
        tags: ['envelopes'],
        summary: 'Add a recipient to a draft',
        security: API_KEY_OR_LOGIN,

        params: EnvelopeParams,
        body: RecipientBody,
        response: { 201: RecipientResponse, ...problems(401, 404, 409, 422) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await addRecipient(forCaller(ctx, request), accountOf(request), request.params.id, request.body)),
  );

  app.post(
    '/envelopes/:id/documents',
    {
      onRequest,
      schema: {
        operationId: 'attachDocument',
        tags: ['envelopes'],
        summary:
          'Attach a PDF to a draft: upload one (multipart "file") or name a workspace document (JSON document_id)',
        security: API_KEY_OR_LOGIN,

        params: EnvelopeParams,
        body: {
          content: {
            'application/json': { schema: AttachDocumentJson },
            // Not validated by schema (the multipart stream is read by the handler); documented here.
            'multipart/form-data': { schema: MultipartFile },
          },
        },
        response: { 201: DocumentBody, ...problems(401, 404, 409, 410, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const caller = forCaller(ctx, request);
      const source = request.isMultipart()
        ? { kind: 'upload' as const, ...(await readFilePart(request)) }
        : { kind: 'workspace' as const, documentId: (request.body as { document_id: string }).document_id };
      return reply.code(201).send(await attachDocument(caller, accountId, request.params.id, source));
    },
  );

  app.put(
    '/envelopes/:id/documents/:document_id/fields',
    {
      onRequest,
      attachValidation: true,
      schema: {
        operationId: 'replaceFields',
        tags: ['envelopes'],
        summary: 'Replace all fields of a document on a draft envelope',
        security: API_KEY_OR_LOGIN,

        params: EnvelopeDocumentParams,
        body: FieldsBody,
        response: { 200: FieldsResponse, ...problems(401, 404, 409, 422) },
      },
    },
    async (request) => {
      if (request.validationError) throw fieldSchemaError(request.validationError);
      return replaceFields(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        request.params.document_id,
        request.body.fields,
      );
    },
  );
}

/**
 * The layout error code of a field member the schema checks, so an item says the same whether the schema or the
 * domain (domain/envelopes/field-layout.ts) found it.
 */
const FIELD_MEMBER_CODES: Readonly<Record<string, string>> = {
  recipient_id: 'unknown_recipient',
  field_type: 'unknown_field_type',
  page_number: 'page_out_of_range',
};

/** Schema errors inside /fields/N are layout errors too: report them the same way, by index. */
function fieldSchemaError(error: {
  validation?: { instancePath: string; message?: string; params?: unknown }[];
  validationContext?: string;
}): MoharError {
  const items = (error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
    const path = `${v.instancePath}${missing ? `/${missing}` : ''}`;
    const [, index, member] = /^\/fields\/(\d+)(?:\/(\w+))?/.exec(path) ?? [];
    const code = member === undefined ? undefined : FIELD_MEMBER_CODES[member];
    return {
      path: path || '/',
      message: v.message ?? 'is not valid',
      ...(index === undefined ? {} : { index: Number(index) }),
      ...(code === undefined ? {} : { code }),
    };
  });
  if (error.validationContext !== 'body' || items.some((i) => i.index === undefined)) {
    return new MoharError('validation_failed', items.map((i) => `${i.path} ${i.message}`).join('; '), {
      errors: items,
    });
  }
  return new MoharError(
    'invalid_field_layout',
    `${items.length} problem(s) in the field layout; field ${items[0]!.index}: ${items[0]!.path} ${items[0]!.message}`,
    { errors: items },
  );
}
