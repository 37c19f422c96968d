/** Wraps a creating handler in Idempotency-Key semantics (see domain/idempotency). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isMoharError, MoharError } from '../../common/errors.js';
import type { Context } from '../domain/context.js';
import {
  beginIdempotent,
  completeIdempotent,
  findIdempotent,
  KeyTakenMeanwhile,
  releaseIdempotent,
  requestFingerprint,
  type KeyInCommit,
} from '../domain/idempotency/idempotency.js';
import { holdLease } from '../domain/idempotency/lease.js';
import { accountOf, header, modeOf } from './auth-hooks.js';

/**
 * Keys are per account; a test key's request is never "the same" as a live one's (issue 16: a test key must not
 * be answered with a live envelope's replay): its mode is part of its fingerprint, so reusing a live request's
 * key is 409 idempotency_conflict. Live fingerprints are unchanged.
 */
function fingerprintOf(request: FastifyRequest, sameness: unknown): string {
  const mode = modeOf(request);
  return requestFingerprint(request.method, request.routeOptions.url ?? request.url, {
    params: request.params,
    body: sameness,
    ...(mode === 'test' ? { mode } : {}),
  });
}

/**
 * MOHAR_TEST_CRASH_POINT=after-effect (tests only): the process dies here, its effect committed and its answer
 * neither stored nor sent, the moment a crash must not lose (issue 33).
 */
function crashPointAfterEffect(ctx: Context): void {
  if (ctx.config.testCrashPoint === 'after-effect') process.kill(process.pid, 'SIGKILL');
}

/**
 * Three commits: the key's row in flight, the effect, the answer. For operations whose effect is not one
 * database commit (a send with its blobs, a template with its documents); prefer idempotentInOneCommit.
 * The in-flight row holds a lease this process renews while it runs (domain/idempotency/lease.ts): after a
 * crash a retry answers idempotency_in_progress until the lease lapses, then runs again.
 * `sameness` is what makes two requests "the same" (default: the parsed body); a multipart route passes its
 * own description of the parts, since its parsed body is empty.
 */
export async function idempotent(
  ctx: Context,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  run: () => Promise<unknown>,
  sameness: unknown = request.body,
): Promise<FastifyReply> {
  const key = header(request, 'idempotency-key');
  if (key === undefined) return reply.code(status).send(await run());
  const accountId = accountOf(request);
  const begin = await beginIdempotent(ctx, accountId, key, fingerprintOf(request, sameness));
  if (begin.kind === 'replay') {
    return reply.header('Idempotent-Replayed', 'true').code(begin.response.status).send(begin.response.body);
  }
  let body: unknown;
  try {
    body = await holdLease(ctx, accountId, key, run);
  } catch (error) {
    await releaseIdempotent(ctx, accountId, key);
    throw error;
  }
  crashPointAfterEffect(ctx);
  await completeIdempotent(ctx, accountId, key, { status, body });
  return reply.code(status).send(body);
}

/**
 * The route's serializer for a JSON answer of `status`. A response declared with its content types (a JSON answer
 * that documents headers, schemas/responses.ts) has one serializer per type, which reply.serialize() cannot pick.
 */
function serializeJson(reply: FastifyReply, status: number, body: unknown): string {
  const byType = reply.getSerializationFunction(String(status), 'application/json');
  const plain = reply.getSerializationFunction(String(status));
  const serializer = typeof byType === 'function' ? byType : typeof plain === 'function' ? plain : undefined;
  return serializer ? serializer(body as Record<string, unknown>) : JSON.stringify(body);
}

/**
 * The same semantics for an operation that stores the key's row itself, done and with its answer, in the
 * commit that creates what it creates (keyInsert): one commit instead of three. A refused or failed
 * attempt writes nothing, so there is nothing to release. When a concurrent request took the key first
 * (KeyTakenMeanwhile), this one answers from that request's row: a replay, or idempotency_in_progress.
 * `expand`: the answer again from what the operation stored in the key's row, when that is not the answer itself.
 * `sameness`: as for idempotent().
 */
export async function idempotentInOneCommit(
  ctx: Context,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  run: (claim?: KeyInCommit) => Promise<unknown>,
  expand: (stored: unknown) => Promise<unknown> = async (stored) => stored,
  sameness: unknown = request.body,
): Promise<FastifyReply> {
  const key = header(request, 'idempotency-key');
  if (key === undefined) return reply.code(status).send(await run());
  // The answer is serialized once, by the route's response schema, for the key's row and for the reply.
  let answer: string | undefined;
  const serialize = (body: unknown): string => {
    answer = serializeJson(reply.code(status), status, body);
    return answer;
  };
  const claim: KeyInCommit = {
    accountId: accountOf(request),
    key,
    fingerprint: fingerprintOf(request, sameness),
    status,
    serialize,
  };
  const replay = async (found: Extract<Awaited<ReturnType<typeof findIdempotent>>, { kind: 'replay' }>) =>
    reply
      .header('Idempotent-Replayed', 'true')
      .code(found.response.status)
      .send(await expand(found.response.body));
  for (let attempt = 0; attempt < 2; attempt++) {
    // The first attempt reads nothing: a key used before makes its write fail on the key's primary key
    // (KeyTakenMeanwhile), and the next attempt reads the key's row. A fresh key, the common case, costs no read.
    if (attempt > 0) {
      const found = await findIdempotent(ctx, claim.accountId, key, claim.fingerprint);
      if (found.kind === 'replay') return replay(found);
    }
    answer = undefined;
    try {
      const body = await run(claim);
      crashPointAfterEffect(ctx);
      if (answer === undefined) return reply.code(status).send(body);
      return reply.code(status).type('application/json; charset=utf-8').send(answer);
    } catch (error) {
      if (error instanceof KeyTakenMeanwhile) continue;
      // A refusal may come before the write for a key used before (its template archived since, say): then the
      // key's row answers, as it would have had it been read first.
      if (attempt === 0 && isMoharError(error)) {
        const found = await findIdempotent(ctx, claim.accountId, key, claim.fingerprint);
        if (found.kind === 'replay') return replay(found);
      }
      throw error;
    }
  }
  throw new MoharError(
    'idempotency_in_progress',
    'a request with this Idempotency-Key is changing state; retry shortly',
    { retryAfterSeconds: 1 },
  );
}
