/**
 * Success responses that are not a plain JSON body: PDF bytes, and JSON with response headers. They use the
 * content-type form of a route response schema, which Fastify serializes per content type and
 * @fastify/swagger documents as is (with the response's `headers`).
 */
import type { TSchema } from 'typebox';
import { inlineHeaders, type ResponseHeaderName } from '../openapi-headers.js';
import { Problem } from './common.js';

export interface ResponseWithContent {
  readonly description: string;
  readonly headers?: Record<string, Record<string, unknown>>;
  readonly content: Record<string, { schema: unknown; example?: unknown }>;
}

/** A PDF answer (http/send-pdf.ts), with the headers that route sends. */
export function pdfResponse(description: string, headers: readonly ResponseHeaderName[] = []): ResponseWithContent {
  return {
    description,
    ...(headers.length > 0 ? { headers: inlineHeaders(headers) } : {}),
    content: {
      'application/pdf': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/pdf' } },
    },
  };
}

/** A JSON answer that also carries response headers (e.g. ETag). */
export function jsonWithHeaders<T extends TSchema>(
  schema: T,
  headers: readonly ResponseHeaderName[],
  description = 'Default Response',
): ResponseWithContent {
  // As @fastify/swagger does for a plain response schema: the schema's first example is the media's example.
  const examples = (schema as { examples?: unknown }).examples;
  const example = Array.isArray(examples) && examples.length > 0 ? { example: examples[0] as unknown } : {};
  return { description, headers: inlineHeaders(headers), content: { 'application/json': { schema, ...example } } };
}

/** A problem answer that also carries a route's own headers (the shared problem responses have no room for them). */
export function problemWithHeaders(
  headers: readonly ResponseHeaderName[],
): typeof Problem & { readonly headers: Record<string, Record<string, unknown>> } {
  return { ...Problem, headers: inlineHeaders(headers) };
}
