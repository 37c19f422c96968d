/**
 * The response headers Mohar sends, described once: the OpenAPI documents reference them
 * (components/headers) and docs/api.md explains them in the same words.
 */

export interface HeaderDoc {
  readonly description: string;
  readonly schema: Record<string, unknown>;
}

const integer = { type: 'integer', minimum: 0 };
const text = { type: 'string' };

export const RESPONSE_HEADERS = {
  'X-RateLimit-Limit': {
    description:
      'requests allowed in the current one-minute window: per API key (MOHAR_RATE_LIMIT_PER_MINUTE), on signing-link calls per link and per client address',
    schema: integer,
  },
  'X-RateLimit-Remaining': { description: 'requests left in the current one-minute window', schema: integer },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the current window ends', schema: integer },
  'Retry-After': {
    description:
      'seconds to wait before retrying: on 429 (rate_limited, account_locked, monthly_quota_exceeded), on 409 idempotency_in_progress and concurrent_update, on 503 server_busy',
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored first response to the same Idempotency-Key and request, replayed',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: { description: 'the URL of the created resource', schema: { type: 'string', format: 'uri-reference' } },
  ETag: {
    description:
      "the representation's entity tag: the SHA-256 (hex, quoted) of a PDF; the version number (quoted) of a template, for If-Match",
    schema: text,
  },
  'Repr-Digest': { description: 'the SHA-256 of the PDF bytes (RFC 9530): `sha-256=:base64:`', schema: text },
  'Content-Disposition': { description: 'attachment with the download file name (RFC 6266)', schema: text },
  'Cache-Control': {
    description:
      '`no-store` on answers that carry a secret (webhook secrets, the console session); `private, no-store` on final documents a browser must not keep',
    schema: text,
  },
  'X-Mohar-Signature-Field': {
    description: 'the name (URL-encoded) of the signature field the desktop signs in the prepared PDF',
    schema: text,
  },
  'Template-Version-Created': {
    description: '`true` when the PATCH stored a new template version, `false` when nothing changed',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  'Set-Cookie': {
    description: "the console session's refresh token (mohar_console; HttpOnly, SameSite=Strict, Path …/auth/session/)",
    schema: text,
  },
} as const satisfies Record<string, HeaderDoc>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** The rate-limit headers every counted response carries (http/rate-limit.ts, http/token-limits.ts). */
export const RATE_LIMIT_HEADERS: readonly ResponseHeaderName[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

/** `{name: {$ref}}` for a response object's `headers`. */
export function headerRefs(names: readonly ResponseHeaderName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** For route response schemas (@fastify/swagger copies a response schema's `headers` into the document). */
export function inlineHeaders(names: readonly ResponseHeaderName[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    names.map((name) => [name, { ...RESPONSE_HEADERS[name].schema, description: RESPONSE_HEADERS[name].description }]),
  );
}
