/**
 * The one error type of Mohar. Every layer (pdf/, native/, server/) throws MoharError with a
 * stable string code; the server maps codes to HTTP in exactly one table (server/http/error-codes.ts).
 * This module is a leaf: it imports nothing, so every layer may depend on it.
 */

/** One problem with one item of a request (a field, a row, a setting). */
export interface ErrorItem {
  /** Where the problem is: a JSON pointer-ish path such as "/fields/2/x" or "fields[2]". */
  readonly path?: string;
  /** Index of the offending item in a list, when the request was a list. */
  readonly index?: number;
  readonly code?: string;
  readonly message: string;
}

export interface ErrorOptions {
  readonly errors?: readonly ErrorItem[];
  /** Seconds after which a retry may succeed (rate limits, lockouts). */
  readonly retryAfterSeconds?: number;
  /** Extra machine-readable members added to the problem document. */
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class MoharError extends Error {
  readonly code: string;
  readonly errors?: readonly ErrorItem[];
  readonly retryAfterSeconds?: number;
  readonly extra?: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MoharError';
    this.code = code;
    if (options.errors) this.errors = options.errors;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.extra) this.extra = options.extra;
  }
}

export function isMoharError(value: unknown, code?: string): value is MoharError {
  return value instanceof MoharError && (code === undefined || value.code === code);
}
