/**
 * Runs durable jobs: claims due jobs with a lease, runs them with bounded concurrency, marks them
 * done, or retries them with backoff (backoff.ts) until they become dead letters (state `dead`,
 * last_error kept). A crashed worker's jobs are reclaimed once their lease expires.
 *
 * Claiming is one atomic statement per batch:
 *  - PostgreSQL: UPDATE … WHERE id IN (SELECT id … FOR UPDATE SKIP LOCKED LIMIT n) RETURNING *,
 *    so any number of runners (processes, servers) share the table and never claim a job twice.
 *  - SQLite (one server process): the due ids are read, then UPDATE … WHERE id IN (…) AND
 *    state = 'queued' RETURNING *; the single UPDATE is its own write transaction, so a
 *    second runner (or the CLI) can only get the rows the first did not.
 *
 * Delivery is at least once: a job whose worker dies after the work but before marking it done
 * runs again, so handlers must be idempotent (mail.send checks the outbox row first).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../storage/connect.js';
import type { Database, JobsTable } from '../storage/schema.js';
import { retryDelayMs } from './backoff.js';
import { LeaseLoop } from './lease-loop.js';
import { describeError } from './queue.js';

export interface JobRunInfo {
  readonly jobId: string;
  readonly kind: string;
  /** 1 for the first run, 2 for the first retry, … */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** This is the last attempt: if it fails, the job becomes a dead letter. */
  readonly final: boolean;
  /** Aborted when the job timed out or the runner gave up waiting for it at stop(). */
  readonly signal: AbortSignal;
}

export type JobHandler = (payload: unknown, info: JobRunInfo) => Promise<void>;
export type JobHandlers = Readonly<Record<string, JobHandler>>;

/** Thrown by a handler when retrying cannot help: the job becomes dead at once. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

/** pino-compatible (app.log fits). */
export interface JobLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface JobRunnerOptions {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Kinds this runner runs; jobs of other kinds stay queued for a runner that knows them. */
  readonly handlers: JobHandlers;
  /** The clock for run_at, leases and backoff (ctx.now; tests move it). */
  readonly now?: () => Date;
  /** How often to look for due jobs when idle; default 500 ms. */
  readonly pollIntervalMs?: number;
  /** Jobs run at the same time; default 4. */
  readonly concurrency?: number;
  /** A claimed job belongs to this runner this long, renewed every quarter of it while it runs; default 60 s. */
  readonly leaseMs?: number;
  /** A handler running longer fails this attempt (and its signal is aborted); default 10 minutes. */
  readonly jobTimeoutMs?: number;
  /** Names the runner in lease_owner; default host:pid:random. */
  readonly owner?: string;
  /** Jitter source for the backoff (tests make it fixed). */
  readonly random?: () => number;
  /** Default: errors to the console, nothing else. */
  readonly logger?: JobLogger;
}

export interface StopOptions {
  /**
   * Stop waiting for running jobs after this long; their leases are then released (expired at once), so the next
   * runner, here or in another instance, retries them without waiting for the lease to lapse.
   */
  readonly timeoutMs?: number;
}

type JobRow = Selectable<JobsTable>;

const consoleLogger: JobLogger = {
  warn: () => undefined,
  error: (object, message) => console.error(message, object),
};

const LEASE_EXPIRED = 'the lease expired: the worker running this attempt stopped or crashed';

export class JobRunner {
  readonly owner: string;
  private readonly db: Kysely<Database>;
  private readonly dialect: DialectName;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly now: () => Date;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly jobTimeoutMs: number;
  private readonly random: () => number;
  private readonly logger: JobLogger;

  private readonly loop: LeaseLoop;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly active = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  /** Jobs given up at stop(): whatever their handler does later is not written back. */
  private readonly detached = new Set<string>();

  constructor(options: JobRunnerOptions) {
    this.db = options.db;
    this.dialect = options.dialect;
    for (const [kind, handler] of Object.entries(options.handlers)) this.handlers.set(kind, handler);
    this.now = options.now ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.concurrency = Math.max(1, Math.trunc(options.concurrency ?? 4));
    this.leaseMs = options.leaseMs ?? 60_000;
    this.jobTimeoutMs = options.jobTimeoutMs ?? 10 * 60_000;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? consoleLogger;
    this.loop = new LeaseLoop({
      pollIntervalMs: this.pollIntervalMs,
      round: () => this.claimRound(),
      hasRoom: () => this.active.size < this.concurrency,
    });
  }

  /** Adds a handler (before start(), or at any time: the next claim includes the kind). */
  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Starts polling. */
  start(): void {
    if (this.loop.start()) this.scheduleHeartbeat();
  }

  /** Looks for due jobs now (call after committing an enqueue); harmless when idle or stopped. */
  poke(): void {
    this.loop.poke();
  }

  /** Number of jobs running now. */
  get running(): number {
    return this.active.size;
  }

  /**
   * Stops claiming and waits for running jobs (all of them, or up to timeoutMs; jobs still running
   * then are given up and their leases released, so whichever runner comes next retries them at once).
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (!this.loop.beginStop()) return;
    await this.loop.roundEnded();
    const running = Promise.allSettled([...this.active.values()].map((a) => a.promise));
    if (options.timeoutMs === undefined) {
      await running;
    } else {
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        running,
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, options.timeoutMs);
        }),
      ]);
      clearTimeout(timeout);
    }
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (this.active.size > 0) {
      const ids = [...this.active.keys()];
      this.logger.warn(
        { jobs: ids, owner: this.owner },
        'job runner stopped with jobs still running; their leases are released and they are retried',
      );
      for (const [id, { abort }] of this.active) {
        this.detached.add(id);
        abort.abort(new Error('the job runner stopped'));
      }
      this.active.clear();
      await this.releaseLeases(ids);
    }
    this.loop.finishStop();
  }

  /**
   * Runs every job due now, batch after batch, until none is left; returns how many ran.
   * For tests and one-shot commands: not meant to be mixed with start().
   */
  async runDueJobs(): Promise<number> {
    let total = 0;
    for (;;) {
      await this.reapExpiredLeases();
      const jobs = await this.claim(this.concurrency);
      if (jobs.length === 0) return total;
      total += jobs.length;
      await Promise.all(jobs.map((job) => this.runJob(job, new AbortController())));
    }
  }

  /** One round of the lease loop: claims jobs for the free slots and launches them; true when it filled them all. */
  private async claimRound(): Promise<boolean> {
    try {
      const free = this.concurrency - this.active.size;
      if (free <= 0 || this.handlers.size === 0) return false;
      await this.reapExpiredLeases();
      const jobs = await this.claim(free);
      for (const job of jobs) this.launch(job);
      return jobs.length === free;
    } catch (error) {
      this.logger.error({ err: error }, 'job runner: claiming jobs failed; trying again at the next poll');
      return false;
    }
  }

  private launch(job: JobRow): void {
    const abort = new AbortController();
    const promise = this.runJob(job, abort).finally(() => {
      this.active.delete(job.id);
      this.detached.delete(job.id);
      this.poke();
    });
    this.active.set(job.id, { promise, abort });
  }

  /** Requeues (or, after the last attempt, kills) running jobs whose lease expired. */
  private async reapExpiredLeases(): Promise<void> {
    const at = this.now().toISOString();
    const expired = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', '=', 'running')
      .where('lease_expires_at', '<=', at)
      .limit(1)
      .executeTakeFirst();
    if (!expired) return;
    const result = await this.db
      .updateTable('jobs')
      .set({
        state: sql<'queued' | 'dead'>`CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END`,
        finished_at: sql<string | null>`CASE WHEN attempts >= max_attempts THEN ${at} ELSE NULL END`,
        last_error: LEASE_EXPIRED,
        run_at: at,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: at,
      })
      .where('state', '=', 'running')
      .where('lease_expires_at', '<=', at)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) {
      this.logger.warn({ jobs: Number(result.numUpdatedRows) }, 'job runner: reclaimed jobs whose lease expired');
    }
  }

  /** Claims up to `limit` due jobs of the kinds this runner knows. */
  private async claim(limit: number): Promise<JobRow[]> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0 || limit <= 0) return [];
    const now = this.now();
    const at = now.toISOString();
    const claimed = {
      state: 'running' as const,
      lease_owner: this.owner,
      lease_expires_at: new Date(now.getTime() + this.leaseMs).toISOString(),
      updated_at: at,
    };
    const due = this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', '=', 'queued')
      .where('run_at', '<=', at)
      .where('kind', 'in', kinds)
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit);
    let rows: JobRow[];
    if (this.dialect === 'postgres') {
      rows = await this.db
        .updateTable('jobs')
        .set((eb) => ({ ...claimed, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', due.forUpdate().skipLocked())
        .returningAll()
        .execute();
    } else {
      const ids = (await due.execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      rows = await this.db
        .updateTable('jobs')
        .set((eb) => ({ ...claimed, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', ids)
        .where('state', '=', 'queued')
        .returningAll()
        .execute();
    }
    return rows.sort((a, b) => (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : 0));
  }

  private async runJob(job: JobRow, abort: AbortController): Promise<void> {
    const attempt = Number(job.attempts);
    const maxAttempts = Number(job.max_attempts);
    let outcome: { ok: true } | { ok: false; error: unknown };
    try {
      const handler = this.handlers.get(job.kind);
      if (!handler) throw new PermanentJobError(`no handler for job kind ${job.kind}`);
      let payload: unknown;
      try {
        payload = JSON.parse(job.payload);
      } catch (error) {
        throw new PermanentJobError('the payload is not JSON', { cause: error });
      }
      const info: JobRunInfo = {
        jobId: job.id,
        kind: job.kind,
        attempt,
        maxAttempts,
        final: attempt >= maxAttempts,
        signal: abort.signal,
      };
      await this.withTimeout(handler(payload, info), abort);
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (this.detached.has(job.id)) return;
    try {
      if (outcome.ok) await this.markDone(job);
      else await this.markFailed(job, outcome.error);
    } catch (error) {
      // The lease will expire and the job will run again: at least once.
      this.logger.error({ err: error, job: job.id }, 'job runner: recording the outcome of a job failed');
    }
  }

  /** Settles with the handler, or rejects when the job times out or is given up at stop(). */
  private async withTimeout(work: Promise<void>, abort: AbortController): Promise<void> {
    let timeout: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<never>((_, reject) => {
      onAbort = () =>
        reject(abort.signal.reason instanceof Error ? abort.signal.reason : new Error('the job was aborted'));
      abort.signal.addEventListener('abort', onAbort, { once: true });
      timeout = setTimeout(
        () => abort.abort(new Error(`the job did not finish within ${Math.round(this.jobTimeoutMs / 1000)} s`)),
        this.jobTimeoutMs,
      );
    });
    try {
      await Promise.race([work, cut]);
    } finally {
      clearTimeout(timeout);
      if (onAbort) abort.signal.removeEventListener('abort', onAbort);
    }
  }

  private async markDone(job: JobRow): Promise<void> {
    const at = this.now().toISOString();
    const result = await this.db
      .updateTable('jobs')
      .set({ state: 'done', finished_at: at, updated_at: at, lease_owner: null, lease_expires_at: null })
      .where('id', '=', job.id)
      .where('state', '=', 'running')
      .where('lease_owner', '=', this.owner)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) this.lostLease(job);
  }

  private async markFailed(job: JobRow, error: unknown): Promise<void> {
    const now = this.now();
    const at = now.toISOString();
    const attempt = Number(job.attempts);
    const dead = error instanceof PermanentJobError || attempt >= Number(job.max_attempts);
    const message = describeError(error);
    const result = await this.db
      .updateTable('jobs')
      .set({
        state: dead ? 'dead' : 'queued',
        last_error: message,
        run_at: dead ? job.run_at : new Date(now.getTime() + retryDelayMs(attempt, this.random)).toISOString(),
        finished_at: dead ? at : null,
        updated_at: at,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', job.id)
      .where('state', '=', 'running')
      .where('lease_owner', '=', this.owner)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) this.lostLease(job);
    else if (dead) {
      this.logger.error({ job: job.id, kind: job.kind, attempt, error: message }, 'job is dead (no more attempts)');
    } else this.logger.warn({ job: job.id, kind: job.kind, attempt, error: message }, 'job failed; it will be retried');
  }

  private lostLease(job: JobRow): void {
    this.logger.warn(
      { job: job.id, kind: job.kind },
      'job runner: the lease of a finished job had expired and another runner took it; its outcome was not recorded',
    );
  }

  private scheduleHeartbeat(): void {
    const every = Math.max(50, Math.floor(this.leaseMs / 4));
    this.heartbeat = setTimeout(() => {
      void this.renewLeases().finally(() => {
        if (this.loop.isStarted && this.heartbeat !== undefined) this.scheduleHeartbeat();
      });
    }, every);
  }

  /**
   * Ends the leases of jobs given up at stop(): they expire now, so the next claiming round (any runner's)
   * reclaims them as interrupted attempts, the same path as a crashed runner's jobs, minus the wait.
   */
  private async releaseLeases(ids: readonly string[]): Promise<void> {
    try {
      await this.db
        .updateTable('jobs')
        .set({ lease_expires_at: this.now().toISOString() })
        .where('id', 'in', ids)
        .where('state', '=', 'running')
        .where('lease_owner', '=', this.owner)
        .execute();
    } catch (error) {
      this.logger.error({ err: error }, 'job runner: releasing leases failed; they expire on their own');
    }
  }

  /** Extends the lease of every job this runner is running. */
  private async renewLeases(): Promise<void> {
    const ids = [...this.active.keys()].filter((id) => !this.detached.has(id));
    if (ids.length === 0) return;
    try {
      await this.db
        .updateTable('jobs')
        .set({ lease_expires_at: new Date(this.now().getTime() + this.leaseMs).toISOString() })
        .where('id', 'in', ids)
        .where('state', '=', 'running')
        .where('lease_owner', '=', this.owner)
        .execute();
    } catch (error) {
      this.logger.error({ err: error }, 'job runner: renewing leases failed');
    }
  }
}
