/**
 * Keeps link credentials out of every log line (issue 16.9), in one place: the logger's serializers and its
 * message hook (server/app.ts), so no route has to remember.
 *
 * A signing link is its own credential: whoever reads `/sign/{token}` in a log can sign. So are the legacy
 * signed-document links, the `?token=` of invitation and reset links, and any query parameter named like a
 * secret. Tokens become `[redacted]` and the shape of the route stays (`/sign/[redacted]`), so the logs
 * still say what was called. Percent-encoded URLs inside other URLs (`mohar://sign?url=https%3A%2F%2F…`)
 * are matched too. Headers and body fields that hold secrets are pino `redact` paths (app.ts).
 */

export const REDACTED = '[redacted]';

/**
 * `/sign/{token}`, `/signing/{token}…` (signer API, sandbox), `/document/signed/{token}/` (legacy),
 * `/sign/aadhaar/go/{txn}` (the eSign auto-post page), also %2F-encoded.
 */
const TOKEN_SEGMENT =
  /((?:\/|%2F)(?:sign|signing|signed|aadhaar(?:\/|%2F)go)(?:\/|%2F))(?!(?:assets|aadhaar|\[redacted\])(?:[/?#&"'\s]|%2F|%3F|$))((?:(?!%2F|%3F|%26)[^/?#&"'\s<>])+)/gi;
/**
 * `?token=…`, `&access_token=…`, `api_key=`, `secret=`, `password=`, `session=`, `signature=`, `code=` (also
 * %3F/%26/%3D-encoded).
 */
const SECRET_PARAMETER =
  /((?:[?&;]|%3F|%26)[\w.-]*(?:token|secret|password|passwd|api[_-]?key|apikey|session|signature|code)[\w.-]*(?:=|%3D))((?:(?!%26)[^&#"'\s<>])+)/gi;
/** `Bearer …` in a message (an Authorization value copied into an error). */
const BEARER = /(\bBearer\s+)[\w.~+/-]+=*/gi;
/** API keys wherever they appear. */
const API_KEY = /\bqsk_(live|test)_[A-Za-z0-9_-]+/g;

/** The text with every link credential replaced by [redacted]. */
export function redactSecrets(text: string): string {
  if (!/sign|token|secret|passw|key|session|signature|code|bearer|qsk_/i.test(text)) return text;
  return text
    .replace(TOKEN_SEGMENT, `$1${REDACTED}`)
    .replace(SECRET_PARAMETER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(API_KEY, `qsk_$1_${REDACTED}`);
}

/** Errors are copied, not changed: the thrower may still hold them (and pino's own serializer then reads the copy). */
function redactError(error: Error, depth: number): Error {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(error)) {
    copy[key] = redactValue((error as unknown as Record<string, unknown>)[key], depth + 1);
  }
  return copy;
}

/** Every string in a logged value, redacted: plain objects, arrays and errors (message, stack, cause, extra fields). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return redactError(value, depth);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  // Requests, replies, buffers and the like keep their own serializers (the request's is below).
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, depth + 1);
  return out;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** pino serializers for Fastify's logger: the request line (Fastify's own fields, the URL redacted). */
export const logSerializers = {
  req(request: LoggedRequest) {
    return {
      method: request.method,
      url: request.url === undefined ? undefined : redactSecrets(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

/** pino `hooks.logMethod`: a message (and any further string argument) redacted. */
export function redactLogArguments(this: unknown, args: unknown[], method: (...args: unknown[]) => void): void {
  method.apply(
    this,
    args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)),
  );
}

/** pino `formatters.log`: the merged object of every line, before serializers (errors, fields like `link`, `url`). */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  return redactValue(object) as Record<string, unknown>;
}
