/**
 * The HTTP client of webhook deliveries: one POST, a hard deadline (10 s by default) for the whole
 * exchange, redirects never followed, and the address policy applied twice: in the socket's lookup (every
 * address a name resolves to) and on the connected socket (which also covers IP literals). Connections are
 * kept alive and reused per origin, so a busy receiver is not paid a TCP and TLS handshake per event.
 * Never throws: every outcome, including a refused address, is a WebhookResponse.
 */
import http from 'node:http';
import https from 'node:https';
import {
  addressPolicy,
  guardedLookup,
  guardSocket,
  OutboundRefused,
  refuseLiteral,
  type AddressPolicy,
  type Resolver,
} from '../net/guarded-transport.js';

export const USER_AGENT = 'Mohar-Webhooks/0.1';
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Kept of a response body, for the delivery log. */
const EXCERPT_BYTES = 512;
/** Read (and thrown away) at most this much of a response body; past it the connection is dropped. */
const MAX_RESPONSE_BYTES = 256 * 1024;

export interface WebhookRequest {
  readonly url: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface WebhookResponse {
  /** null when no HTTP answer came. */
  readonly statusCode: number | null;
  /** Why it failed (refused, timeout, connection error), or null on an HTTP answer. */
  readonly error: string | null;
  /** The start of the response body (for the log). */
  readonly excerpt: string;
  readonly location: string | undefined;
  readonly durationMs: number;
}

export interface WebhookTransport {
  post(request: WebhookRequest): Promise<WebhookResponse>;
  /** Closes kept-alive connections. */
  close(): void;
}

export interface WebhookTransportOptions {
  /** MOHAR_WEBHOOK_ALLOW_PRIVATE: plain http and private or loopback addresses allowed. */
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  /** Name resolution; tests inject names. */
  readonly resolve?: Resolver;
  /** Which addresses may be reached; default from allowPrivate (public only). Tests widen it. */
  readonly policy?: AddressPolicy;
  /** Connections per receiver origin; default 64. */
  readonly maxSockets?: number;
}

export function webhookTransport(options: WebhookTransportOptions): WebhookTransport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy = options.policy ?? addressPolicy(options.allowPrivate);
  const lookup = guardedLookup(policy, options.resolve);
  const sockets = options.maxSockets ?? 64;
  const agentOptions = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, scheduling: 'lifo' as const };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function post(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const finish = (fields: Partial<WebhookResponse>): WebhookResponse => ({
      statusCode: null,
      error: null,
      excerpt: '',
      location: undefined,
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(request.url);
    } catch {
      return Promise.resolve(finish({ error: `${request.url} is not a URL` }));
    }
    if (target.protocol !== 'https:' && !(options.allowPrivate && target.protocol === 'http:')) {
      return Promise.resolve(
        finish({
          error: `refused: ${target.protocol}// targets need MOHAR_WEBHOOK_ALLOW_PRIVATE=1; webhooks use https`,
        }),
      );
    }
    const literal = refuseLiteral(target.hostname, policy);
    if (literal) return Promise.resolve(finish({ error: `refused: ${literal.message}` }));

    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const settle = (fields: Partial<WebhookResponse>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(finish(fields));
      };
      const client = target.protocol === 'https:' ? https : http;
      const outgoing = client.request(
        target,
        {
          method: 'POST',
          agent: agents[target.protocol as 'http:' | 'https:'],
          lookup,
          headers: { ...request.headers, 'user-agent': USER_AGENT, 'content-length': String(request.body.length) },
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
          const kept: Buffer[] = [];
          let keptBytes = 0;
          let total = 0;
          response.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (keptBytes < EXCERPT_BYTES) {
              kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
              keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
            }
            // A receiver that streams on: the status is known, the rest is not wanted.
            if (total > MAX_RESPONSE_BYTES) {
              outgoing.destroy();
              settle({ statusCode, location, excerpt: Buffer.concat(kept).toString('utf8') });
            }
          });
          response.on('end', () => settle({ statusCode, location, excerpt: Buffer.concat(kept).toString('utf8') }));
          response.on('error', () => settle({ statusCode, location, excerpt: Buffer.concat(kept).toString('utf8') }));
        },
      );
      const deadline = setTimeout(() => {
        outgoing.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      outgoing.on('socket', (socket) => guardSocket(socket, policy));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const refused = error instanceof OutboundRefused;
        const code = typeof error.code === 'string' && !error.message.includes(error.code) ? `${error.code}: ` : '';
        settle({ error: `${refused ? 'refused: ' : ''}${code}${error.message}` });
      });
      outgoing.end(request.body);
    });
  }

  return {
    post,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
