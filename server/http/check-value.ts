/**
 * Validates a value the route schema could not see (a multipart JSON part, one branch of a union) with the same
 * schemas.
 */
import type { TSchema, Static } from 'typebox';
import { Value } from 'typebox/value';
import { MoharError } from '../../common/errors.js';

export function checkValue<T extends TSchema>(schema: T, value: unknown, where: string): Static<T> {
  if (Value.Check(schema, value)) return value as Static<T>;
  const errors = [...Value.Errors(schema, value)].slice(0, 50).map((e) => {
    const missing = (e.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
    return { path: `${where}${e.instancePath}${missing ? `/${missing}` : ''}` || '/', message: e.message };
  });
  throw new MoharError(
    'validation_failed',
    errors
      .map((e) => `${e.path} ${e.message}`)
      .slice(0, 3)
      .join('; '),
    { errors },
  );
}

/** Parses a JSON text part, or says which part is not JSON. */
export function parseJsonPart(text: string | undefined, name: string): unknown {
  if (text === undefined) {
    throw new MoharError('validation_failed', `the multipart part "${name}" (JSON) is required`, {
      errors: [{ path: `/${name}`, message: 'required' }],
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MoharError(
      'malformed_json',
      `the multipart part "${name}" is not valid JSON: ${(error as Error).message}`,
    );
  }
}
