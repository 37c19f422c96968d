/**
 * The burst limit as one hook for both API scopes, keyed on the authenticated API key. It runs in
 * preParsing, i.e. after the routes' onRequest authentication (auth-hooks.ts) has set request.apiKey and
 * before the body is read, so an over-limit request costs no parsing. Calls authenticated by a login
 * token, and unauthenticated ones, are not counted here (logins have their own lockout).
 *
 * Every counted response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
 * time in seconds when the window ends); over the limit: 429 rate_limited with Retry-After.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';
import type { Context } from '../domain/context.js';
import { createRateLimiter, type RateDecision } from '../domain/limits/rate-limiter.js';

function apply(reply: FastifyReply, decision: RateDecision, nowMs: number, who = 'this API key'): MoharError | null {
  const resetSeconds = Math.ceil(decision.resetAt / 1000);
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', resetSeconds);
  if (decision.allowed) return null;
  const wait = Math.max(1, Math.ceil((decision.resetAt - nowMs) / 1000));
  return new MoharError(
    'rate_limited',
    `${who} made more than ${decision.limit} requests this minute; retry in ${wait} s`,
    {
      retryAfterSeconds: wait,
      extra: { limit: decision.limit, window_seconds: 60 },
    },
  );
}

export function installRateLimit(app: FastifyInstance, ctx: Context): void {
  const limiter = createRateLimiter(ctx.db, ctx.dialect, ctx.config.rateLimitPerMinute);
  if (!limiter) return;
  // Callback style, not async: no promise on the hot path unless the shared store must be asked.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const key = request.apiKey;
    if (key === null) return done(null, payload);
    const nowMs = ctx.now().getTime();
    const decision = limiter.take(key.keyId, nowMs);
    if (!(decision instanceof Promise)) return done(apply(reply, decision, nowMs), payload);
    decision.then(
      (d) => done(apply(reply, d, nowMs), payload),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

/**
 * The same window and headers for one public route, keyed on the client address (request.ip: the forwarded client
 * only behind a trusted proxy): an onRequest hook, so an over-limit upload is refused before its body is read.
 * Null when `limit` is 0 (no limit).
 */
export function limitPerAddress(
  ctx: Context,
  limit: number,
  scope: string,
): ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | null {
  const limiter = createRateLimiter(ctx.db, ctx.dialect, limit);
  if (!limiter) return null;
  return async (request, reply) => {
    const nowMs = ctx.now().getTime();
    const decision = await limiter.take(`${scope}:${request.ip}`, nowMs);
    const refusal = apply(reply, decision, nowMs, 'this address');
    if (refusal) throw refusal;
  };
}
