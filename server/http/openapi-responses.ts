/**
 * The responses side of the OpenAPI documents, applied once to the generated document rather than in every
 * route: every error is the shared Problem (application/problem+json, components/responses), and the statuses
 * and headers that the server's central hooks add are listed on the operations they reach:
 *
 * - rate limits (http/rate-limit.ts: calls made with an API key; http/token-limits.ts: signing-link calls):
 *   429 with Retry-After, and X-RateLimit-* on every answer;
 * - body parsing (Fastify, http/problem.ts): 400 malformed_json, 413, 415 on every method that reads a body,
 *   422 validation_failed where a body or a constrained path/query parameter is validated;
 * - every operation: 500 internal_error and 503 server_busy / storage_full; 403 on every call made with an API key
 *   (account_suspended);
 * - Idempotency-Key (http/idempotency.ts): Idempotent-Replayed on the success answer, and the key required
 *   where the handler refuses a call without it (400 idempotency_key_required).
 */
import { Problem } from './schemas/common.js';
import { headerRefs, RATE_LIMIT_HEADERS, RESPONSE_HEADERS, type ResponseHeaderName } from './openapi-headers.js';

type Json = Record<string, unknown>;
interface Operation extends Json {
  parameters?: Json[];
  requestBody?: Json;
  responses?: Record<string, Json>;
  security?: Record<string, unknown>[];
}

/** The handlers of these operations answer 400 idempotency_key_required without the header. */
const IDEMPOTENCY_KEY_REQUIRED = new Set(['post /bulk-sends', 'post /templates/{id}/instantiate']);

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

interface ErrorResponseDoc {
  readonly name: string;
  readonly description: string;
  readonly headers: readonly ResponseHeaderName[];
}

const ERROR_RESPONSES: Record<string, ErrorResponseDoc> = {
  '400': {
    name: 'BadRequest',
    description: 'malformed_json (the body is not valid JSON), idempotency_key_required, or another bad request',
    headers: [],
  },
  '401': { name: 'Unauthorized', description: 'missing, unknown or expired credentials', headers: [] },
  '403': { name: 'Forbidden', description: 'the caller may not do this (role, suspended account, mode)', headers: [] },
  '404': { name: 'NotFound', description: "no such resource, or another account's", headers: [] },
  '409': {
    name: 'Conflict',
    description: 'the resource is not in a state that allows this; idempotency_in_progress carries Retry-After',
    headers: ['Retry-After'],
  },
  '410': { name: 'Gone', description: 'the link or token expired or was revoked', headers: [] },
  '412': { name: 'PreconditionFailed', description: 'If-Match does not match the current ETag', headers: [] },
  '413': { name: 'ContentTooLarge', description: 'body_too_large or file_too_large', headers: [] },
  '415': {
    name: 'UnsupportedMediaType',
    description: 'unsupported_media_type: the Content-Type is not one this operation reads',
    headers: [],
  },
  '422': {
    name: 'UnprocessableContent',
    description: 'validation_failed (errors[] names each path: body/…, params/…, querystring/…) or a rule of the call',
    headers: [],
  },
  '429': {
    name: 'TooManyRequests',
    description: 'rate_limited, account_locked or monthly_quota_exceeded; retry after Retry-After seconds',
    headers: ['Retry-After'],
  },
  '500': { name: 'InternalError', description: 'internal_error: something went wrong on our side', headers: [] },
  '503': {
    name: 'ServiceUnavailable',
    description:
      'server_busy (the PDF workers are saturated) or storage_full (no storage space left; nothing was stored); retry after Retry-After seconds',
    headers: ['Retry-After'],
  },
};

const problemResponse = (status: string): Json => ({ $ref: `#/components/responses/${errorDoc(status).name}` });

/** The shared problem response of `status`, plus a route's own headers. */
function problemWith(status: string, headers: readonly ResponseHeaderName[]): Json {
  const response = errorResponse(status);
  withHeaders(response, headers);
  return response;
}

function errorResponse(status: string): Json {
  const { description, headers } = errorDoc(status);
  const response: Json = {
    description: `${status}: ${description} (application/problem+json)`,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  // X-RateLimit-*: on API-key and signing-link calls every answer is counted, errors included.
  withHeaders(response, [...headers, ...RATE_LIMIT_HEADERS]);
  return response;
}

function errorDoc(status: string): ErrorResponseDoc {
  return ERROR_RESPONSES[status] ?? { name: `Status${status}`, description: `error ${status}`, headers: [] };
}

function isRateLimited(path: string, operation: Operation): boolean {
  const byKey = (operation.security ?? []).some((requirement) => 'apiKey' in requirement);
  return byKey || path.includes('{token}');
}

/** A path or query parameter whose schema can reject a value (a malformed id is 422 validation_failed). */
function hasCheckedParameter(operation: Operation): boolean {
  return (operation.parameters ?? []).some((parameter) => {
    if (parameter.in !== 'path' && parameter.in !== 'query') return false;
    const schema = (parameter.schema ?? {}) as Json;
    const checks = ['format', 'pattern', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'const'];
    return checks.some((k) => k in schema) || (schema.type !== undefined && schema.type !== 'string');
  });
}

function withHeaders(response: Json, names: readonly ResponseHeaderName[]): void {
  if (names.length === 0) return;
  response.headers = { ...((response.headers as Json | undefined) ?? {}), ...headerRefs(names) };
}

function documentOperation(method: string, path: string, operation: Operation): void {
  const responses = (operation.responses ??= {});
  const limited = isRateLimited(path, operation);
  const added: string[] = [];
  if (limited) added.push('429');
  // Any call can meet a server fault (500) or a busy or full server (503); a key's suspended account is 403 on
  // every call made with that key (http/auth-hooks.ts).
  added.push('500', '503');
  if ((operation.security ?? []).some((requirement) => 'apiKey' in requirement)) added.push('403');
  if (BODY_METHODS.has(method)) added.push('400', '413', '415');
  if (operation.requestBody || hasCheckedParameter(operation)) added.push('422');
  for (const status of added) responses[status] ??= {};
  const idempotencyKey = (operation.parameters ?? []).find((p) => p.in === 'header' && p.name === 'idempotency-key');
  if (idempotencyKey && IDEMPOTENCY_KEY_REQUIRED.has(`${method} ${path}`)) idempotencyKey.required = true;

  for (const [status, response] of Object.entries(responses)) {
    // Route-declared headers (openapi-headers.ts) become references to the shared descriptions.
    const declared = Object.keys((response.headers as Json | undefined) ?? {}).filter(
      (name): name is ResponseHeaderName => name in RESPONSE_HEADERS,
    );
    if (Number(status) >= 400) {
      responses[status] = declared.length === 0 ? problemResponse(status) : problemWith(status, declared);
      continue;
    }
    withHeaders(response, declared);
    if (limited) withHeaders(response, RATE_LIMIT_HEADERS);
    if (idempotencyKey) withHeaders(response, ['Idempotent-Replayed']);
  }
}

/** transformObject for @fastify/swagger: the generated document with the shared responses applied. */
export function documentResponses<T>(document: T): T {
  const doc = document as Json & { paths?: Record<string, Record<string, Operation>>; components?: Json };
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      documentOperation(method, path, operation);
      for (const status of Object.keys(operation.responses ?? {})) if (Number(status) >= 400) used.add(status);
    }
  }
  const components = (doc.components ??= {});
  components.schemas = { ...((components.schemas as Json | undefined) ?? {}), Problem: plainJson(Problem) };
  components.responses = Object.fromEntries(
    [...used].sort().map((status) => [errorDoc(status).name, errorResponse(status)]),
  );
  // Only the headers some response references (an unused component is a lint warning).
  const referenced = new Set(
    [...JSON.stringify(doc).matchAll(/"#\/components\/headers\/([^"]+)"/g)].map((match) => match[1]),
  );
  components.headers = Object.fromEntries(
    Object.entries(RESPONSE_HEADERS)
      .filter(([name]) => referenced.has(name))
      .map(([name, header]) => [name, { ...header }]),
  );
  return document;
}

/** A TypeBox schema as plain JSON (no symbol keys). */
function plainJson(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}
