/**
 * Templates (issue 12): create, list, read (portable), patch (versions), archive/restore, instantiate. Handlers stay
 * thin.
 */
import { jsonWithHeaders } from '../../http/schemas/responses.js';
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../../domain/context.js';
import { archiveTemplate, restoreTemplate } from '../../domain/templates/archive-template.js';
import { createTemplate, importTemplate, templateFromEnvelope } from '../../domain/templates/create-template.js';
import { instantiateTemplate } from '../../domain/templates/instantiate.js';
import { expandInstantiation } from '../../domain/templates/instantiated-answer.js';
import type { DefinitionInput, TemplateActor } from '../../domain/templates/model.js';
import { patchTemplate } from '../../domain/templates/patch-template.js';
import { getTemplate, getVersion, listTemplates, listVersions } from '../../domain/templates/read-templates.js';
import { MAX_TEMPLATE_DOCUMENTS } from '../../domain/templates/validate.js';
import { accountOf, forCaller, header, requireApiKey } from '../../http/auth-hooks.js';
import { checkValue, parseJsonPart } from '../../http/check-value.js';
import { idempotent, idempotentInOneCommit } from '../../http/idempotency.js';
import { locationHeader } from '../../http/location.js';
import { creatorOf, mineFilter } from '../../http/mine.js';
import { readFilesForm, type FilesForm } from '../../http/multipart-files.js';
import { IdempotentHeaders, problems } from '../../http/schemas/common.js';
import {
  FromEnvelopeBody,
  ImportBody,
  InstantiateBody,
  InstantiatedEnvelopeResponse,
  TemplateCreateMultipartExample,
  TemplatePatchMultipartExample,
  InstantiateHeaders,
  PatchHeaders,
  PortableTemplateResponse,
  TemplateCreateJson,
  TemplateDefinitionBody,
  TemplateGetQuery,
  TemplateListQuery,
  TemplateListResponse,
  TemplateParams,
  TemplatePatchBody,
  VersionDetailResponse,
  VersionListQuery,
  VersionListResponse,
  VersionParams,
} from '../../http/schemas/templates.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

const tags = ['templates'];

function actorOf(request: FastifyRequest): TemplateActor {
  // The office console acts as its logged-in user; integrators as their key.
  return request.user
    ? { type: 'user', id: request.user.userId }
    : { type: 'api_key', id: request.apiKey?.keyId ?? null };
}

/** What makes two multipart requests the same for Idempotency-Key: the JSON part and the files' SHA-256. */
function formFingerprint(form: FilesForm): unknown {
  return {
    fields: form.fields,
    files: [...form.files].map(([name, f]) => [
      name,
      f.filename ?? null,
      createHash('sha256').update(f.bytes).digest('hex'),
    ]),
  };
}

export function templateRoutes(app: App, ctx: Context): void {
  const onRequest = requireApiKey(ctx);
  // RFC 7396's own media type, parsed as JSON (this scope only).
  if (!app.hasContentTypeParser('application/merge-patch+json')) {
    app.addContentTypeParser(
      'application/merge-patch+json',
      { parseAs: 'string' },
      app.getDefaultJsonParser('error', 'error'),
    );
  }
  // Imports carry their PDFs as base64 in the JSON body: room for the largest allowed set of them.
  const importBodyLimit = Math.ceil((ctx.config.maxPdfBytes * 4) / 3) * MAX_TEMPLATE_DOCUMENTS + 2 * 1024 * 1024;

  app.post(
    '/templates',
    {
      onRequest,
      bodyLimit: importBodyLimit,
      attachValidation: true,
      schema: {
        operationId: 'createTemplate',
        tags,
        summary:
          'Create a template: upload PDFs with a "template" JSON part (multipart), copy an envelope ({source_envelope_id}), or import a portable template ({format: "mohar.template/v1", …})',
        security: API_KEY_OR_LOGIN,
        headers: IdempotentHeaders,
        body: {
          content: {
            'application/json': { schema: TemplateCreateJson },
            // Streamed by the handler; documented here. The "template" part is checked against TemplateDefinition.
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  template: {
                    ...TemplateDefinitionBody,
                    description: 'JSON text: the template definition; documents[].file names a file part',
                  },
                },
                additionalProperties: { type: 'string', format: 'binary', description: 'PDF file parts' },
                examples: [TemplateCreateMultipartExample],
              },
            },
          },
        },
        response: {
          201: jsonWithHeaders(PortableTemplateResponse, ['Location'], 'the template; Location is its URL'),
          ...problems(401, 404, 409, 410, 413, 415, 422),
        },
      },
      onSend: locationHeader(app.prefix, 'templates', 'template_id'),
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const caller = forCaller(ctx, request);
      const actor = actorOf(request);
      if (request.isMultipart()) {
        const form = await readFilesForm(request, MAX_TEMPLATE_DOCUMENTS);
        const definition = checkValue(
          TemplateDefinitionBody,
          parseJsonPart(form.fields.template, 'template'),
          '/template',
        ) as DefinitionInput;
        // Each way, the key's row is written in the template's transaction (crash-safe: issue 33).
        return idempotentInOneCommit(
          ctx,
          request,
          reply,
          201,
          (claim) => createTemplate(caller, accountId, actor, definition, form.files, claim),
          undefined,
          formFingerprint(form),
        );
      }
      const body = request.body as Record<string, unknown> | null;
      if (body === null || typeof body !== 'object') {
        throw new MoharError(
          'validation_failed',
          'send multipart/form-data, or JSON with source_envelope_id or a portable template',
        );
      }
      // The union's own errors list both branches; report those of the branch the body is meant to be.
      if (Object.hasOwn(body, 'source_envelope_id')) {
        const input = checkValue(FromEnvelopeBody, body, '');
        return idempotentInOneCommit(ctx, request, reply, 201, (claim) =>
          templateFromEnvelope(caller, accountId, actor, input, claim),
        );
      }
      const portable = checkValue(ImportBody, body, '') as DefinitionInput & {
        format: string;
        template_id?: string;
        version?: number;
      };
      return idempotentInOneCommit(ctx, request, reply, 201, (claim) =>
        importTemplate(caller, accountId, actor, portable, claim),
      );
    },
  );

  app.get(
    '/templates',
    {
      onRequest,
      schema: {
        operationId: 'listTemplates',
        tags,
        summary:
          "List templates, newest first (cursor paging; ?archived=true|false|all, ?q= on the name, ?mine=true: the login's own)",
        security: API_KEY_OR_LOGIN,
        querystring: TemplateListQuery,
        response: { 200: TemplateListResponse, ...problems(401, 422) },
      },
    },
    (request) => {
      const { mine, ...query } = request.query;
      return listTemplates(forCaller(ctx, request), accountOf(request), { ...query, ...mineFilter(request, mine) });
    },
  );

  app.get(
    '/templates/:id',
    {
      onRequest,
      schema: {
        operationId: 'getTemplate',
        tags,
        summary: 'The portable template (latest version); ETag = version; ?include=documents embeds the PDFs',
        security: API_KEY_OR_LOGIN,
        params: TemplateParams,
        querystring: TemplateGetQuery,
        response: {
          200: jsonWithHeaders(PortableTemplateResponse, ['ETag'], 'the template; ETag is its version, for If-Match'),
          ...problems(401, 404),
        },
      },
    },
    async (request, reply) => {
      const template = await getTemplate(forCaller(ctx, request), accountOf(request), request.params.id, {
        includeDocuments: request.query.include === 'documents',
      });
      return reply.header('ETag', `"${template.version}"`).send(template);
    },
  );

  app.patch(
    '/templates/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateTemplate',
        tags,
        summary:
          'JSON Merge Patch on settings, roles and documents/fields: a new immutable version n+1 (none when nothing changes); If-Match gives 412 on a lost update',
        security: API_KEY_OR_LOGIN,
        headers: PatchHeaders,
        params: TemplateParams,
        body: {
          content: {
            'application/merge-patch+json': { schema: TemplatePatchBody },
            'application/json': { schema: TemplatePatchBody },
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  template: {
                    ...TemplatePatchBody,
                    description: 'JSON text: the merge patch; documents[].file names a file part (a replaced PDF)',
                  },
                },
                additionalProperties: { type: 'string', format: 'binary' },
                examples: [TemplatePatchMultipartExample],
              },
            },
          },
        },
        response: {
          200: jsonWithHeaders(PortableTemplateResponse, ['ETag', 'Template-Version-Created'], 'the template'),
          ...problems(401, 404, 409, 410, 412, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const caller = forCaller(ctx, request);
      let patch: Record<string, unknown>;
      let files: FilesForm['files'] = new Map();
      if (request.isMultipart()) {
        const form = await readFilesForm(request, MAX_TEMPLATE_DOCUMENTS);
        patch = checkValue(TemplatePatchBody, parseJsonPart(form.fields.template, 'template'), '/template');
        files = form.files;
      } else {
        patch = request.body as Record<string, unknown>;
      }
      const result = await patchTemplate(caller, accountId, actorOf(request), request.params.id, {
        patch,
        files,
        ifMatch: header(request, 'if-match'),
      });
      return reply
        .header('ETag', `"${result.template.version}"`)
        .header('Template-Version-Created', String(result.created))
        .send(result.template);
    },
  );

  app.delete(
    '/templates/:id',
    {
      onRequest,
      schema: {
        operationId: 'archiveTemplate',
        tags,
        summary: 'Archive a template (soft delete): still readable, cannot be instantiated or patched',
        security: API_KEY_OR_LOGIN,
        params: TemplateParams,
        response: { 200: PortableTemplateResponse, ...problems(401, 404) },
      },
    },
    (request) => archiveTemplate(forCaller(ctx, request), accountOf(request), actorOf(request), request.params.id),
  );

  app.post(
    '/templates/:id/restore',
    {
      onRequest,
      schema: {
        operationId: 'restoreTemplate',
        tags,
        summary: 'Restore an archived template',
        security: API_KEY_OR_LOGIN,
        params: TemplateParams,
        response: { 200: PortableTemplateResponse, ...problems(401, 404) },
      },
    },
    (request) => restoreTemplate(forCaller(ctx, request), accountOf(request), actorOf(request), request.params.id),
  );

  app.get(
    '/templates/:id/versions',
    {
      onRequest,
      schema: {
        operationId: 'listTemplateVersions',
        tags,
        summary: 'Version history, newest first: who, when, and a summary of what changed',
        security: API_KEY_OR_LOGIN,
        params: TemplateParams,
        querystring: VersionListQuery,
        response: { 200: VersionListResponse, ...problems(401, 404) },
      },
    },
    (request) => listVersions(forCaller(ctx, request), accountOf(request), request.params.id, request.query),
  );

  app.get(
    '/templates/:id/versions/:version',
    {
      onRequest,
      schema: {
        operationId: 'getTemplateVersion',
        tags,
        summary: 'One version: its change summary and the portable template as it was',
        security: API_KEY_OR_LOGIN,
        params: VersionParams,
        response: { 200: VersionDetailResponse, ...problems(401, 404) },
      },
    },
    (request) => getVersion(forCaller(ctx, request), accountOf(request), request.params.id, request.params.version),
  );

  app.post(
    '/templates/:id/instantiate',
    {
      onRequest,
      schema: {
        operationId: 'instantiateTemplate',
        tags,
        summary:
          'Create a draft envelope pinned to a template version from slot mappings (Idempotency-Key required); send: true sends it at once',
        security: API_KEY_OR_LOGIN,
        headers: InstantiateHeaders,
        params: TemplateParams,
        body: InstantiateBody,
        response: {
          201: jsonWithHeaders(InstantiatedEnvelopeResponse, ['Location'], 'the envelope; Location is its URL'),
          ...problems(400, 401, 404, 409, 422),
        },
      },
      onSend: locationHeader(app.prefix, 'envelopes', 'id'),
    },
    async (request, reply) => {
      if (header(request, 'idempotency-key') === undefined) {
        throw new MoharError(
          'idempotency_key_required',
          'instantiate needs an Idempotency-Key header (any unique string per intended envelope), so a retried call cannot make a second envelope',
        );
      }
      const accountId = accountOf(request);
      const caller = forCaller(ctx, request);
      // The key's row is written with the draft, in its commit; a sent envelope is known only after the send's commit.
      const input = { ...request.body, createdBy: creatorOf(request) };
      if (input.send) {
        return idempotent(ctx, request, reply, 201, () =>
          instantiateTemplate(caller, accountId, request.params.id, input),
        );
      }
      return idempotentInOneCommit(
        ctx,
        request,
        reply,
        201,
        (claim) => instantiateTemplate(caller, accountId, request.params.id, input, claim),
        (stored) => expandInstantiation(caller, accountId, stored),
      );
    },
  );
}
