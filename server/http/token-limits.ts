/**
 * Limits for the routes whose credential is a signing link's token in the path (`…/:token…`: the signer API,
 * the sandbox's mock signing, the legacy signed-document link). Anyone holding a link, or guessing links,
 * reaches them without an API key, so they are the cheapest to abuse:
 *
 * - Body size: 64 KiB unless the route sets its own `bodyLimit` (the signing act, which carries the
 *   signature image; the signed-PDF upload). The declared Content-Length is compared before a byte of the
 *   body is read; Fastify's own count stops a chunked body that grows past the limit.
 * - Rate: at most `MOHAR_TOKEN_RATE_LIMIT_PER_MINUTE` requests per link and
 *   `MOHAR_ADDRESS_RATE_LIMIT_PER_MINUTE` per client address, in fixed one-minute windows, with the
 *   API-key limiter's stores (domain/limits/rate-limiter.ts: memory on SQLite, shared on PostgreSQL).
 *   Links are counted under a hash, so no token is ever written to the database.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';
import type { Context } from '../domain/context.js';
import { createRateLimiter, type RateDecision, type RateLimiter } from '../domain/limits/rate-limiter.js';
import { Problem } from './schemas/common.js';

/** Default body limit of a token route. */
export const TOKEN_ROUTE_BODY_LIMIT = 64 * 1024;
/**
 * The signing act: JSON with a base64 signature image and a base64 initials image (schema: at most 2,000,000 characters
 * each).
 */
export const SIGN_ACT_BODY_LIMIT = 5 * 1024 * 1024;

const isTokenRoute = (url: string): boolean => url.includes('/:token');

function tokenOf(request: FastifyRequest): string | undefined {
  const token = (request.params as { token?: unknown } | undefined)?.token;
  return typeof token === 'string' ? token : undefined;
}

/** The declared body length is over `limit`: refused before reading. */
export function declaredTooLarge(request: FastifyRequest, limit: number): number | undefined {
  const declared = Number(request.headers['content-length'] ?? 0);
  return Number.isFinite(declared) && declared > limit ? declared : undefined;
}

function refuseIfOver(decision: RateDecision, reply: FastifyReply, nowMs: number, what: string): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', Math.ceil(decision.resetAt / 1000));
  if (decision.allowed) return;
  const wait = Math.max(1, Math.ceil((decision.resetAt - nowMs) / 1000));
  throw new MoharError(
    'rate_limited',
    `${what} made more than ${decision.limit} requests this minute; retry in ${wait} s`,
    {
      retryAfterSeconds: wait,
      extra: { limit: decision.limit, window_seconds: 60 },
    },
  );
}

async function take(
  limiter: RateLimiter | undefined,
  key: string,
  reply: FastifyReply,
  nowMs: number,
  what: string,
): Promise<void> {
  if (!limiter) return;
  refuseIfOver(await limiter.take(key, nowMs), reply, nowMs, what);
}

export function installTokenRouteLimits(app: FastifyInstance, ctx: Context): void {
  // Routes registered after this (all of them) get the small default unless they chose a limit.
  app.addHook('onRoute', (route) => {
    if (!isTokenRoute(route.url)) return;
    if (route.bodyLimit === undefined) route.bodyLimit = TOKEN_ROUTE_BODY_LIMIT;
    // Documented in OpenAPI with the route's other problems.
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (route.schema && response) route.schema.response = { 413: Problem, 429: Problem, ...response };
  });
  const perToken = createRateLimiter(ctx.db, ctx.dialect, ctx.config.tokenRateLimitPerMinute);
  const perAddress = createRateLimiter(ctx.db, ctx.dialect, ctx.config.addressRateLimitPerMinute);
  app.addHook('onRequest', async (request, reply) => {
    const token = tokenOf(request);
    if (token === undefined || !isTokenRoute(request.routeOptions.url ?? '')) return;
    const limit = request.routeOptions.bodyLimit;
    const declared = declaredTooLarge(request, limit);
    if (declared !== undefined) {
      const pdf = String(request.headers['content-type'] ?? '').startsWith('application/pdf');
      throw new MoharError(
        pdf ? 'file_too_large' : 'body_too_large',
        `the request body is ${declared} bytes; this route accepts at most ${limit} bytes`,
      );
    }
    const nowMs = ctx.now().getTime();
    await take(perAddress, `addr:${request.ip}`, reply, nowMs, 'this client address');
    await take(
      perToken,
      `link:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`,
      reply,
      nowMs,
      'this signing link',
    );
  });
}
