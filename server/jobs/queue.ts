/**
 * The durable job table: enqueue (inside the caller's transaction), list. The runner that claims
 * and runs jobs is in runner.ts; the retry schedule in backoff.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { newestFirstPage, olderThan, pageLimit, unknownCursor, type NewestFirstPage } from '../storage/keyset.js';
import type { Database, JobState, JobsTable } from '../storage/schema.js';

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'dead'];

/** Attempts before a failing job becomes a dead letter, unless the job says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 8;

/** last_error keeps at most this many characters. */
export const MAX_ERROR_CHARS = 2000;

export interface EnqueueOptions {
  readonly kind: string;
  /** Anything JSON can carry; the handler receives it parsed. */
  readonly payload: unknown;
  /** Not before this time; default: `now`. */
  readonly runAt?: Date;
  /** Default 8 (DEFAULT_MAX_ATTEMPTS). */
  readonly maxAttempts?: number;
  /** The same logical job is enqueued once: a second enqueue with this key returns the first job's id. */
  readonly dedupeKey?: string;
  /** The account the job works for: it appears in that account's jobs listing. */
  readonly accountId?: string;
  /** The enqueue time (created_at), from the caller's clock (ctx.now()); default the system clock. */
  readonly now?: Date;
}

export interface EnqueueResult {
  readonly id: string;
  /** false when dedupeKey named an existing job (nothing was written). */
  readonly created: boolean;
}

/**
 * Writes a queued job and returns its id. Pass the caller's transaction as `db` to enqueue
 * atomically with the business change: a rollback leaves no job. A duplicate dedupeKey is a
 * no-op that returns the existing job's id. Wake a runner (runner.poke()) after the commit to run
 * it at once; otherwise the next poll finds it.
 */
export async function enqueueJob(db: Kysely<Database>, options: EnqueueOptions): Promise<string> {
  return (await enqueueJobOnce(db, options)).id;
}

/** enqueueJob, telling whether a new job was written. */
export async function enqueueJobOnce(db: Kysely<Database>, options: EnqueueOptions): Promise<EnqueueResult> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a whole number >= 1 (got ${maxAttempts})`);
  }
  if (options.kind === '') throw new RangeError('a job needs a kind');
  const payload = JSON.stringify(options.payload ?? null);
  const at = (options.now ?? new Date()).toISOString();
  const id = randomUUID();
  const row = {
    id,
    kind: options.kind,
    payload,
    state: 'queued' as const,
    attempts: 0,
    max_attempts: maxAttempts,
    run_at: (options.runAt ?? options.now ?? new Date()).toISOString(),
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    dedupe_key: options.dedupeKey ?? null,
    account_id: options.accountId ?? null,
    created_at: at,
    updated_at: at,
    finished_at: null,
  };
  if (options.dedupeKey === undefined) {
    await db.insertInto('jobs').values(row).execute();
    return { id, created: true };
  }
  // ON CONFLICT DO NOTHING (not catching a unique violation), so a PostgreSQL transaction stays usable.
  const inserted = await db
    .insertInto('jobs')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, created: true };
  const existing = await db
    .selectFrom('jobs')
    .select('id')
    .where('dedupe_key', '=', options.dedupeKey)
    .executeTakeFirstOrThrow();
  return { id: existing.id, created: false };
}

export interface JobView {
  id: string;
  kind: string;
  payload: unknown;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: string;
  last_error: string | null;
  dedupe_key: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export function jobView(row: Selectable<JobsTable>): JobView {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    payload = row.payload;
  }
  return {
    id: row.id,
    kind: row.kind,
    payload,
    state: row.state,
    attempts: Number(row.attempts),
    max_attempts: Number(row.max_attempts),
    run_at: row.run_at,
    last_error: row.last_error,
    dedupe_key: row.dedupe_key,
    lease_owner: row.lease_owner,
    lease_expires_at: row.lease_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

export interface ListJobsOptions {
  readonly state?: JobState;
  readonly kind?: string;
  /** Only this account's jobs (the HTTP listing always sets it). */
  readonly accountId?: string;
  /** 1 to 500. */
  readonly limit: number;
  /** Paging: the id of the last job of the previous page. */
  readonly before?: string;
}

export type JobPage = NewestFirstPage<JobView>;

/** Jobs newest first (created_at, then id): dead letters with their last error, for example. */
export async function listJobs(db: Kysely<Database>, options: ListJobsOptions): Promise<JobPage> {
  const limit = pageLimit(options.limit, 500);
  let query = db.selectFrom('jobs').selectAll();
  if (options.accountId !== undefined) query = query.where('account_id', '=', options.accountId);
  if (options.state !== undefined) query = query.where('state', '=', options.state);
  if (options.kind !== undefined) query = query.where('kind', '=', options.kind);
  if (options.before !== undefined) {
    let cursorQuery = db.selectFrom('jobs').select(['created_at', 'id']).where('id', '=', options.before);
    if (options.accountId !== undefined) cursorQuery = cursorQuery.where('account_id', '=', options.accountId);
    const cursor = await cursorQuery.executeTakeFirst();
    if (!cursor) throw unknownCursor(options.before, 'job');
    query = query.where((eb) => olderThan(eb, 'created_at', 'id', { time: cursor.created_at, id: cursor.id }));
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return newestFirstPage(rows, limit, jobView);
}

export function truncateError(message: string): string {
  return message.length <= MAX_ERROR_CHARS ? message : `${message.slice(0, MAX_ERROR_CHARS - 1)}…`;
}

/** A readable one-line-ish description of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const prefix = typeof code === 'string' && !error.message.includes(code) ? `${code}: ` : '';
    return truncateError(`${prefix}${error.message || error.name}`);
  }
  return truncateError(String(error));
}
