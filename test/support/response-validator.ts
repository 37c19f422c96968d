/**
 * Issue 27, "checked by tools": every response a test server sends is checked against the OpenAPI document
 * it serves. The operation is found by method and Fastify's route pattern (`/backend/api/v1/envelopes/:id` →
 * `/envelopes/{id}` in the v1 document); its status must be listed (or `default`), the content type listed
 * for that status, a JSON body valid against the schema (Ajv, JSON Schema 2020-12 as in OpenAPI 3.1), and
 * every non-standard header the server set documented. Violations are collected and the server's close()
 * fails with the list, so the suite that caused them fails.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Json = Record<string, unknown>;

/** Scopes with a document: the route prefix and where the document is served. */
const SCOPES = [
  { prefix: '/backend/api/v1', document: '/backend/api/v1/openapi.json' },
  { prefix: '/backend/othercompanyapi', document: '/backend/othercompanyapi/openapi.json' },
] as const;

/** Routes of a documented scope that are hidden from its document on purpose. */
const HIDDEN_ROUTES = [/^\/openapi\.json$/, /^\/docs(\/|$)/];

/** Headers of HTTP itself, not of the API: they need no description. */
const STANDARD_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export interface ResponseViolation {
  readonly request: string;
  readonly status: number;
  readonly problem: string;
}

export interface ResponseValidator {
  readonly violations: ResponseViolation[];
  /** Throws with the list of violations, if any. */
  assertNone(): void;
}

export function installResponseValidator(app: FastifyInstance): ResponseValidator {
  const violations: ResponseViolation[] = [];
  const documents = new Map<string, Promise<Json>>();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const compiled = new Map<string, ValidateFunction>();

  const documentOf = (url: string): Promise<Json> => {
    let document = documents.get(url);
    if (!document) {
      document = app.inject({ method: 'GET', url }).then((response) => response.json() as Json);
      documents.set(url, document);
    }
    return document;
  };

  async function check(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const pattern = request.routeOptions.url;
    const scope = SCOPES.find((s) => pattern?.startsWith(`${s.prefix}/`));
    if (pattern === undefined || !scope) return;
    const routePath = pattern.slice(scope.prefix.length).replace(/:(\w+)/g, '{$1}');
    if (HIDDEN_ROUTES.some((hidden) => hidden.test(routePath))) return;
    const status = reply.statusCode;
    const fail = (problem: string): void => {
      violations.push({ request: `${request.method} ${request.url.split('?')[0]}`, status, problem });
    };
    const document = await documentOf(scope.document);
    const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
    const operation = paths[routePath]?.[request.method.toLowerCase()];
    if (!operation) return fail(`${request.method} ${routePath} is not in ${scope.document}`);
    const responses = (operation.responses ?? {}) as Record<string, Json>;
    const declared = responses[String(status)] ?? responses.default;
    if (!declared) return fail(`status ${status} is not listed (listed: ${Object.keys(responses).join(', ')})`);
    const response = resolve(document, declared) as Json;

    const headers = new Set(Object.keys((response.headers as Json | undefined) ?? {}).map((h) => h.toLowerCase()));
    for (const name of Object.keys(reply.getHeaders())) {
      if (!STANDARD_HEADERS.has(name) && !headers.has(name)) fail(`header ${name} is not documented`);
    }

    const body = bodyText(payload);
    const content = (response.content ?? {}) as Record<string, Json>;
    // 204 and 304 have no body (Fastify drops what onSend still holds).
    if (body === undefined || body.length === 0 || status === 204 || status === 304) return;
    const mediaType = String(reply.getHeader('content-type') ?? '')
      .split(';')[0]!
      .trim();
    const media = content[mediaType];
    if (!media) {
      return fail(`content type ${mediaType} is not listed (listed: ${Object.keys(content).join(', ') || 'none'})`);
    }
    if (!/^application\/([\w.-]+\+)?json$/.test(mediaType) || !media.schema) return;
    const cacheKey = `${scope.document} ${request.method} ${routePath} ${status} ${mediaType}`;
    let validate = compiled.get(cacheKey);
    if (!validate) compiled.set(cacheKey, (validate = ajv.compile(resolve(document, media.schema) as object)));
    if (!validate(JSON.parse(body))) {
      const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
      fail(`body does not match the schema: ${errors.join('; ')}`);
    }
  }

  app.addHook('onSend', async (request, reply, payload) => {
    try {
      await check(request, reply, payload);
    } catch (error) {
      violations.push({
        request: `${request.method} ${request.url}`,
        status: reply.statusCode,
        problem: String(error),
      });
    }
    return payload;
  });

  return {
    violations,
    assertNone() {
      if (violations.length === 0) return;
      const lines = violations.map((v) => `  ${v.request} → ${v.status}: ${v.problem}`);
      throw new Error(`responses that the OpenAPI documents do not describe:\n${[...new Set(lines)].join('\n')}`);
    },
  };
}

function bodyText(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.length === 0 ? '' : payload.toString('latin1');
  return payload === null || payload === undefined ? '' : undefined;
}

/** The node with every local `$ref` (#/components/…) replaced by its target, recursively. */
function resolve(document: Json, node: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => resolve(document, item, seen));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/') && !seen.includes(ref)) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    return resolve(document, target, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(document, value, seen)]));
}
