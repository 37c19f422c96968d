/**
 * Receiving Mohar's webhooks: `verifyWebhook` checks a delivery the way the interface's receiver rules say
 * (signature over the raw body against every candidate, stale timestamps refused, duplicate event ids
 * refused), and `webhookSignature` is the one definition of the signature that Mohar's sender uses too.
 *
 * This file is published on its own as `mohar/webhooks`: it imports nothing but node:crypto, so a receiver
 * can use it without the rest of the server.
 *
 *   X-Service-Timestamp: 1767225600
 *   X-Service-Signature: sha256=<hex HMAC-SHA256(secret, "1767225600" + "." + raw body)>[,sha256=<…>]
 *   X-Service-Event-Id:  <event id, stable across retries>
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_ID_HEADER = 'x-service-event-id';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Hex HMAC-SHA256 keyed with the secret (its UTF-8 bytes) over `timestamp + "." + rawBody`. */
export function webhookSignature(secret: string, timestamp: number | string, rawBody: Uint8Array | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return hmac.digest('hex');
}

/** The X-Service-Signature value for one or more secrets (first = current, then a previous one during rotation). */
export function signatureHeader(
  secrets: readonly string[],
  timestamp: number | string,
  rawBody: Uint8Array | string,
): string {
  return secrets.map((secret) => `sha256=${webhookSignature(secret, timestamp, rawBody)}`).join(',');
}

/** Where event ids already accepted are remembered. A `Set<string>` works for one process. */
export interface SeenStore {
  has(eventId: string): boolean | Promise<boolean>;
  add(eventId: string): unknown;
}

/** Node's `request.headers`, a Fetch `Headers`, or any object of header values (names in any case). */
export type WebhookHeaders =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The request body exactly as received (do not parse and re-serialise it first). */
  readonly rawBody: Uint8Array | string;
  readonly headers: WebhookHeaders;
  /** The webhook secret(s) you hold; during a rotation give both the new and the old one. */
  readonly secrets: string | readonly string[];
  /** How far the timestamp may be from now, either way; default 300 s. */
  readonly toleranceSeconds?: number;
  /** Rejects a repeated event id; the id is added when a delivery verifies. */
  readonly seen?: SeenStore;
  /** The receiver's clock (default Date.now()); for tests. */
  readonly now?: Date | number;
}

export type WebhookFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_secret'
  | 'bad_signature'
  | 'stale_timestamp'
  | 'duplicate_event'
  | 'invalid_body';

export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  sequence: number;
  data: Record<string, unknown>;
}

export type VerifyWebhookResult =
  | { readonly ok: true; readonly eventId: string; readonly timestamp: number; readonly event: WebhookEvent }
  | { readonly ok: false; readonly reason: WebhookFailure; readonly message: string; readonly eventId?: string };

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) return value.join(',');
  return value as string | undefined;
}

function fail(reason: WebhookFailure, message: string, eventId?: string): VerifyWebhookResult {
  return eventId === undefined ? { ok: false, reason, message } : { ok: false, reason, message, eventId };
}

/**
 * Verifies one delivery. Never throws for a bad delivery: check `ok`, and answer a failed one with a 4xx
 * (except `duplicate_event`: you processed that event already, so answer 2xx and do nothing). When your
 * own processing of a verified event fails and you answer non-2xx, remove the id from `seen` again so
 * Mohar's retry is accepted.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifyWebhookResult> {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const secrets = (typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets]).filter(
    (s) => typeof s === 'string' && s !== '',
  );
  if (secrets.length === 0) return fail('no_secret', 'no webhook secret was given to verify with');

  const timestampText = headerValue(options.headers, TIMESTAMP_HEADER)?.trim();
  const signatureText = headerValue(options.headers, SIGNATURE_HEADER)?.trim();
  const eventId = headerValue(options.headers, EVENT_ID_HEADER)?.trim();
  for (const [name, value] of [
    [TIMESTAMP_HEADER, timestampText],
    [SIGNATURE_HEADER, signatureText],
    [EVENT_ID_HEADER, eventId],
  ] as const) {
    if (!value) return fail('missing_header', `the ${name} header is missing`);
  }
  if (!/^\d{1,12}$/.test(timestampText!)) {
    return fail(
      'malformed_header',
      `${TIMESTAMP_HEADER} must be Unix seconds (got "${timestampText!.slice(0, 40)}")`,
      eventId,
    );
  }
  const candidates: Buffer[] = [];
  for (const part of signatureText!.split(',')) {
    const match = /^\s*sha256=([0-9a-fA-F]{64})\s*$/.exec(part);
    if (match) candidates.push(Buffer.from(match[1]!, 'hex'));
  }
  if (candidates.length === 0) {
    return fail('malformed_header', `${SIGNATURE_HEADER} holds no sha256=<64 hex digits> candidate`, eventId);
  }

  // Every candidate against every secret, without stopping early: the time taken says nothing about which matched.
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(webhookSignature(secret, timestampText!, options.rawBody), 'hex');
    for (const candidate of candidates) if (timingSafeEqual(expected, candidate)) matched = true;
  }
  if (!matched) {
    return fail(
      'bad_signature',
      'no signature candidate matches the body with the given secret(s): wrong secret, or the body was changed (verify the raw bytes, before any JSON parsing)',
      eventId,
    );
  }

  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor(
    (options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime()) /
      1000,
  );
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    return fail(
      'stale_timestamp',
      `the timestamp ${timestamp} is ${nowSeconds - timestamp} s from now; at most ${tolerance} s are accepted`,
      eventId,
    );
  }

  let event: WebhookEvent;
  try {
    event = JSON.parse(
      typeof options.rawBody === 'string' ? options.rawBody : Buffer.from(options.rawBody).toString('utf8'),
    ) as WebhookEvent;
  } catch {
    return fail('invalid_body', 'the signed body is not JSON', eventId);
  }
  if (typeof event !== 'object' || event === null || event.id !== eventId) {
    return fail('invalid_body', `the body's id does not match ${EVENT_ID_HEADER}`, eventId);
  }

  if (options.seen) {
    if (await options.seen.has(eventId!)) {
      return fail('duplicate_event', `event ${eventId} was received before`, eventId);
    }
    await options.seen.add(eventId!);
  }
  return { ok: true, eventId: eventId!, timestamp, event };
}
