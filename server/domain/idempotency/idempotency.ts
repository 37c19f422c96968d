/**
 * Idempotency keys with Stripe's semantics, per account, kept 24 hours:
 * the same key with the same request replays the first response; with a different request it is
 * idempotency_conflict; while the first is still running it is idempotency_in_progress. A failed
 * first attempt releases the key so the client can retry; so does a crash, once the in-flight row's lease has
 * lapsed (lease.ts): then the retry runs again. The primary key (account_id, key)
 * makes concurrent first attempts race safely on both databases: exactly one insert wins.
 */
import { createHash } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { installationBox } from '../../seal/installation-box.js';
import { lapsesAt, LEASE_OWNER, leaseUntil } from './lease.js';

/**
 * Answers may carry signing links (the legacy create's signing_info), so the answers stored by
 * completeIdempotent are sealed with the installation's secret box, bound to their key (issue 16, point 10).
 * A sealed answer starts with the box's "v1." (no JSON text does); answers stored by keyRow, in the commit
 * of a draft, are drafts without links and stay plain JSON.
 */
const SEALED_PREFIX = 'v1.';

function answerContext(accountId: string, key: string): string {
  return `idempotency_keys:${accountId}:${key}`;
}

async function storedAnswer(ctx: Context, accountId: string, key: string, body: string | null): Promise<unknown> {
  if (body === null) return null;
  if (!body.startsWith(SEALED_PREFIX)) return JSON.parse(body);
  const box = await installationBox(ctx.config);
  return JSON.parse(box.open(body, answerContext(accountId, key)).toString('utf8'));
}

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const MAX_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Begin = { kind: 'first' } | { kind: 'replay'; response: StoredResponse };

/** Canonical JSON (sorted keys) so that key order does not make "the same body" different. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonical(body)}`)
    .digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[^\x20-\x7e]/.test(key)) {
    throw new MoharError(
      'validation_failed',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`,
      {
        errors: [{ path: 'headers/idempotency-key', message: 'invalid idempotency key' }],
      },
    );
  }
}

export async function beginIdempotent(
  ctx: Context,
  accountId: string,
  key: string,
  fingerprint: string,
): Promise<Begin> {
  checkIdempotencyKey(key);
  const now = ctx.now();
  for (let attempt = 0; attempt < 2; attempt++) {
    const insert = ctx.db
      .insertInto('idempotency_keys')
      .values({
        account_id: accountId,
        key,
        request_hash: fingerprint,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: iso(now),
        expires_at: iso(new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000)),
        lease_owner: LEASE_OWNER,
        lease_expires_at: leaseUntil(ctx, now),
      })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing());
    // SQLite: the same statement through the fast path, sharing a commit with the other writes of the moment.
    const fast = ctx.sqlite;
    const inserted = fast
      ? await fast.write(() => fast.run(insert.compile()) > 0)
      : (await insert.returning('key').executeTakeFirst()) !== undefined;
    if (inserted) return { kind: 'first' };
    const found = await findIdempotent(ctx, accountId, key, fingerprint);
    if (found.kind !== 'absent') return found;
    // released, expired or abandoned by a dead process between our insert and select: try once more
  }
  throw new MoharError(
    'idempotency_in_progress',
    'a request with this Idempotency-Key is changing state; retry shortly',
    { retryAfterSeconds: 1 },
  );
}

/**
 * What the key's row says, without claiming it: a replay, `absent` (no live row; an expired one, or an
 * in-flight one whose process's lease has lapsed, is deleted), or idempotency_conflict / idempotency_in_progress.
 */
export async function findIdempotent(
  ctx: Context,
  accountId: string,
  key: string,
  fingerprint: string,
): Promise<Begin | { kind: 'absent' }> {
  checkIdempotencyKey(key);
  const now = iso(ctx.now());
  const row = await readKey(ctx, accountId, key);
  if (!row) return { kind: 'absent' };
  if (row.expires_at <= now) {
    await ctx.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('expires_at', '=', row.expires_at)
      .execute();
    return { kind: 'absent' };
  }
  if (row.request_hash !== fingerprint) {
    throw new MoharError(
      'idempotency_conflict',
      'this Idempotency-Key was used with a different request; use a new key for a new request',
    );
  }
  if (row.state !== 'done' && lapsesAt(ctx, row) <= now) {
    await deleteAbandoned(ctx, accountId, key, row);
    return { kind: 'absent' };
  }
  if (row.state !== 'done' || row.response_status === null) {
    throw new MoharError(
      'idempotency_in_progress',
      'a request with this Idempotency-Key is still being processed; retry shortly',
      { retryAfterSeconds: 1 },
    );
  }
  return {
    kind: 'replay',
    response: { status: row.response_status, body: await storedAnswer(ctx, accountId, key, row.response_body) },
  };
}

/**
 * An in-flight row left by a process that is gone (its lease lapsed): deleted only if it is still that row, so
 * that of two retries racing here the second does not delete the first one's fresh claim.
 */
async function deleteAbandoned(ctx: Context, accountId: string, key: string, row: KeyColumns): Promise<void> {
  let remove = ctx.db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', row.created_at);
  remove =
    row.lease_owner === null
      ? remove.where('lease_owner', 'is', null)
      : remove.where('lease_owner', '=', row.lease_owner);
  remove =
    row.lease_expires_at === null
      ? remove.where('lease_expires_at', 'is', null)
      : remove.where('lease_expires_at', '=', row.lease_expires_at);
  await remove.execute();
}

type KeyColumns = Pick<
  IdempotencyKeysTable,
  | 'request_hash'
  | 'state'
  | 'response_status'
  | 'response_body'
  | 'created_at'
  | 'expires_at'
  | 'lease_owner'
  | 'lease_expires_at'
>;
const KEY_COLUMNS = [
  'request_hash',
  'state',
  'response_status',
  'response_body',
  'created_at',
  'expires_at',
  'lease_owner',
  'lease_expires_at',
] as const;
const keyQueries = new WeakMap<Kysely<Database>, CompiledQuery>();

/** The key's row, by a query compiled once per database (on SQLite read at once through the fast path). */
async function readKey(ctx: Context, accountId: string, key: string): Promise<KeyColumns | undefined> {
  let compiled = keyQueries.get(ctx.db);
  if (!compiled) {
    compiled = ctx.db
      .selectFrom('idempotency_keys')
      .select(KEY_COLUMNS)
      .where('account_id', '=', '')
      .where('key', '=', '')
      .compile();
    keyQueries.set(ctx.db, compiled);
  }
  const query: CompiledQuery = { ...compiled, parameters: [accountId, key] };
  const fast = ctx.sqlite?.readArraysNow(query);
  if (fast) {
    const values = fast[0];
    return values === undefined
      ? undefined
      : (Object.fromEntries(KEY_COLUMNS.map((c, i) => [c, values[i]])) as KeyColumns);
  }
  return (await ctx.db.executeQuery(query)).rows[0] as KeyColumns | undefined;
}

/**
 * A key stored in the same commit as what its request creates, already done with the answer (instead of
 * claim, work, answer: three commits). Concurrent first attempts still race on the primary key: the
 * losers' commits leave nothing (see KeyTakenMeanwhile), and they answer from the winner's row.
 */
export interface KeyInCommit {
  readonly accountId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly status: number;
  /**
   * The answer as sent (the HTTP layer serializes it once, by the route's response schema); also as stored, unless
   * the operation stores a shorter form that the route expands on a replay (templates/instantiated-answer.ts).
   */
  readonly serialize: (body: unknown) => string;
}

/** The key's row, done, with the answer. */
export function keyRow(claim: KeyInCommit, responseJson: string, now: Date): IdempotencyKeysTable {
  return {
    account_id: claim.accountId,
    key: claim.key,
    request_hash: claim.fingerprint,
    state: 'done',
    response_status: claim.status,
    response_body: responseJson,
    created_at: iso(now),
    expires_at: iso(new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000)),
    lease_owner: null,
    lease_expires_at: null,
  };
}

/** Thrown inside the creating transaction when another request took the key meanwhile: roll back, then look again. */
export class KeyTakenMeanwhile extends Error {
  constructor(key: string) {
    super(`Idempotency-Key ${key} was taken by a concurrent request`);
    this.name = 'KeyTakenMeanwhile';
  }
}

export async function completeIdempotent(
  ctx: Context,
  accountId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  const sealed = (await installationBox(ctx.config)).seal(
    JSON.stringify(response.body) ?? 'null',
    answerContext(accountId, key),
  );
  const update = ctx.db
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      response_status: response.status,
      response_body: sealed,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    // Only this process's claim: had its lease lapsed (a process frozen past it), the key is another's now.
    .where('lease_owner', '=', LEASE_OWNER);
  const fast = ctx.sqlite;
  if (fast) await fast.write(() => fast.run(update.compile()));
  else await update.execute();
}

export async function releaseIdempotent(ctx: Context, accountId: string, key: string): Promise<void> {
  await ctx.db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('lease_owner', '=', LEASE_OWNER)
    .execute();
}
