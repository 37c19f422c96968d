/**
 * The Ajv validators behind every route schema, chosen by the part of the request (issue 16.1).
 *
 * JSON bodies are typed by the client, so they are checked as sent: `"title": 123` is a 422 naming
 * /title, never a silent "123". Query strings, path parameters and headers arrive as text, so they
 * keep Fastify's coercion (`?limit=10` is the integer 10; a lone `?status=x` becomes ["x"]).
 * Both come from Fastify's own compiler pool, with the same options, formats and shared schemas.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/** Fastify's `ajv` server option, as the pool receives it. */
interface AjvOptions {
  readonly customOptions?: Readonly<Record<string, unknown>>;
  readonly [option: string]: unknown;
}
interface RouteSchema {
  readonly schema: unknown;
  readonly method: string;
  readonly url: string;
  readonly httpPart?: string;
}
type Compile = (route: RouteSchema) => unknown;
/** What the pool really is at run time (its published type names the schema, not the route). */
type Pool = (externalSchemas: Record<string, unknown>, options: AjvOptions) => Compile;
type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;

/** Ajv options of every validator: all errors at once (problem+json lists them), binary for file parts. */
export const AJV_CUSTOM_OPTIONS = { allErrors: true, formats: { binary: true } } as const;

/**
 * Marks a multipart/form-data body schema (`streamedForm`) that the handler checks itself: it reads the parts
 * from the stream after validation ran (server/http/multipart.ts), so the validator sees no parts and must not
 * judge them, while the document still says which parts are required and what they hold.
 */
export const STREAMED_FORM = 'x-streamed-form';

export function streamedForm<T extends object>(schema: T): T {
  return { ...schema, [STREAMED_FORM]: true };
}

function isStreamedForm(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>)[STREAMED_FORM] === true;
}

/** The body validator of a streamed form: the parts are checked by the handler that reads them. */
const acceptStreamedForm = (): boolean => true;

/** Fastify's `schemaController.compilersFactory.buildValidator`: bodies strict, every other part coerced. */
export function partAwareValidator(): BuildValidator {
  const pool = AjvCompiler() as unknown as Pool;
  const build = (externalSchemas: Record<string, unknown>, options: AjvOptions): Compile => {
    const compiler = (coerceTypes: false | 'array') =>
      pool(externalSchemas, {
        ...options,
        customOptions: { ...options.customOptions, ...AJV_CUSTOM_OPTIONS, coerceTypes },
      });
    const body = compiler(false);
    const text = compiler('array');
    return (route) => {
      if (route.httpPart !== 'body') return text(route);
      return isStreamedForm(route.schema) ? acceptStreamedForm : body(route);
    };
  };
  return build as unknown as BuildValidator;
}
