/** Wraps a creating handler in Idempotency-Key semantics (see domain/idempotency). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../domain/context.js';
import { beginIdempotent, completeIdempotent, releaseIdempotent, requestFingerprint } from '../domain/idempotency/idempotency.js';
import { accountOf, header } from './auth-hooks.js';

/**
 * `sameness` is what makes two requests "the same" (default: the parsed body); a multipart route passes its
 * own description of the parts, since its parsed body is empty.
 */
export async function idempotent(ctx: Context, request: FastifyRequest, reply: FastifyReply, status: number, run: () => Promise<unknown>, sameness: unknown = request.body): Promise<FastifyReply> {
  const key = header(request, 'idempotency-key');
  if (key === undefined) return reply.code(status).send(await run());
  const accountId = accountOf(request);
  const fingerprint = requestFingerprint(request.method, request.routeOptions.url ?? request.url, { params: request.params, body: sameness });
  const begin = await beginIdempotent(ctx, accountId, key, fingerprint);
  if (begin.kind === 'replay') {
    return reply.header('Idempotent-Replayed', 'true').code(begin.response.status).send(begin.response.body);
  }
  let body: unknown;
  try {
    body = await run();
  } catch (error) {
    await releaseIdempotent(ctx, accountId, key);
    throw error;
  }
  await completeIdempotent(ctx, accountId, key, { status, body });
  return reply.code(status).send(body);
}
