/** Building blocks of the route schemas (TypeBox): the single source of validation, types and OpenAPI. */
import { Type, type TSchema } from 'typebox';

export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'a UUID' });

/** Issue 15: the console user who created an envelope or template; null when made with an API key or by the system. */
export const CreatedBy = Nullable(
  Type.Object(
    { user_id: Uuid, email: Type.String() },
    { description: 'the console user who created it; null when made with an API key or by the system' },
  ),
);

export const ProblemItem = Type.Object({
  path: Type.Optional(Type.String()),
  index: Type.Optional(Type.Integer()),
  code: Type.Optional(Type.String()),
  message: Type.String(),
});

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'urn:mohar:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'stable error code; see docs/errors.md' }),
    errors: Type.Optional(Type.Array(ProblemItem)),
  },
  { additionalProperties: true, description: 'RFC 9457 problem document (application/problem+json)' },
);

/** Error responses of a route, for OpenAPI: every status the route can answer with a problem. */
export function problems(...statuses: number[]): Record<number, typeof Problem> {
  return Object.fromEntries(statuses.map((s) => [s, Problem]));
}

/**
 * Request headers a route reads. X-Api-Key is not among them: the security schemes of the documents
 * (server/http/openapi.ts) say where the key goes, and the auth hooks read it from the raw headers.
 */
export const IdempotentHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'repeat a request safely: same key and body replay the first response for 24 hours',
    }),
  ),
});
