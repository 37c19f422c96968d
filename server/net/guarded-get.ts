/**
 * GET of a URL from untrusted input that follows redirects (document URLs of the legacy API): http(s) only;
 * every hop is judged again (scheme, and each address its name resolves to, checked in the socket's own
 * lookup so the address connected to is the address checked); at most `maxRedirects` hops; one deadline for
 * the whole fetch; the body is read only up to `maxBytes` (a larger Content-Length is refused unread, a
 * longer stream is cut at the limit). No proxy, no connection reuse across hosts, no cookies.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address-policy.js';

export interface GuardedGetOptions {
  /** Reach loopback and private addresses too (MOHAR_FETCH_ALLOW_PRIVATE). */
  readonly allowPrivate?: boolean;
  /** Which addresses are allowed when private ones are not; default isPublicAddress. Tests narrow or widen it. */
  readonly isAllowedAddress?: (address: string) => boolean;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly maxRedirects?: number;
  readonly userAgent?: string;
}

export interface GuardedGetResult {
  readonly bytes: Buffer;
  /** The URL the body came from (after redirects). */
  readonly url: string;
  readonly contentType: string | undefined;
  readonly redirects: number;
}

export type GuardedGetFailure = 'refused' | 'failed' | 'too_large';

/** Why a fetch did not give a body: `refused` by policy, `failed` on the way, or `too_large`. */
export class GuardedGetError extends Error {
  constructor(
    readonly kind: GuardedGetFailure,
    message: string,
  ) {
    super(message);
    this.name = 'GuardedGetError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function checkedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !allowed(a.address));
      if (refused || list.length === 0) {
        return callback(
          new GuardedGetError(
            'refused',
            `${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not a public address`,
          ),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      }
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Scheme and literal-address checks for one hop (names are checked at connect, in the lookup). */
function checkTarget(raw: string, allowed: (address: string) => boolean): URL {
  if (!URL.canParse(raw)) throw new GuardedGetError('refused', `${raw} is not a URL`);
  const target = new URL(raw);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new GuardedGetError('refused', `only http and https URLs are fetched (got ${target.protocol})`);
  }
  if (target.username || target.password) throw new GuardedGetError('refused', 'URLs with credentials are not fetched');
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !allowed(host)) throw new GuardedGetError('refused', `${host} is not a public address`);
  return target;
}

export async function guardedGet(url: string, options: GuardedGetOptions = {}): Promise<GuardedGetResult> {
  const allowed = options.allowPrivate ? () => true : (options.isAllowedAddress ?? isPublicAddress);
  const lookup = checkedLookup(allowed);
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 3;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const target = checkTarget(current, allowed);
    const hop = await getOnce(target, {
      lookup,
      maxBytes,
      deadline,
      timeoutMs,
      userAgent: options.userAgent ?? 'Mohar/0.1',
    });
    if (hop.kind === 'body') {
      return { bytes: hop.bytes, url: target.toString(), contentType: hop.contentType, redirects };
    }
    if (redirects >= maxRedirects) throw new GuardedGetError('refused', `more than ${maxRedirects} redirects`);
    current = new URL(hop.location, target).toString();
  }
}

type Hop = { kind: 'body'; bytes: Buffer; contentType: string | undefined } | { kind: 'redirect'; location: string };

function getOnce(
  target: URL,
  o: { lookup: LookupFunction; maxBytes: number; deadline: AbortSignal; timeoutMs: number; userAgent: string },
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    if (o.deadline.aborted) return reject(new GuardedGetError('failed', `no answer within ${o.timeoutMs / 1000} s`));
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'GET',
      headers: { 'user-agent': o.userAgent, accept: 'application/pdf, */*' },
      lookup: o.lookup,
      agent: false,
    });
    const onAbort = (): void => {
      request.destroy(new GuardedGetError('failed', `no complete answer within ${o.timeoutMs / 1000} s`));
    };
    o.deadline.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const settle =
      <T>(fn: (value: T) => void) =>
      (value: T): void => {
        if (settled) return;
        settled = true;
        o.deadline.removeEventListener('abort', onAbort);
        fn(value);
      };
    const done = settle(resolve);
    const fail = settle((error: unknown) =>
      reject(error instanceof GuardedGetError ? error : new GuardedGetError('failed', (error as Error).message)),
    );
    request.on('error', fail);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.resume();
        request.destroy();
        const location = response.headers.location;
        if (!location) return fail(new GuardedGetError('failed', `HTTP ${status} without a Location`));
        return done({ kind: 'redirect', location });
      }
      if (status < 200 || status >= 300) {
        request.destroy();
        return fail(new GuardedGetError('failed', `the server answered HTTP ${status}`));
      }
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (declared > o.maxBytes) {
        request.destroy();
        return fail(new GuardedGetError('too_large', `the document has ${declared} bytes; the limit is ${o.maxBytes}`));
      }
      const chunks: Buffer[] = [];
      let total = 0;
      response.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > o.maxBytes) {
          // Stop reading here: the socket is closed, nothing more is buffered.
          request.destroy(
            new GuardedGetError('too_large', `the document is larger than the limit of ${o.maxBytes} bytes`),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        done({ kind: 'body', bytes: Buffer.concat(chunks), contentType: response.headers['content-type'] }),
      );
      response.on('error', fail);
    });
    request.end();
  });
}
