/**
 * The per-key burst limit: at most `limit` requests per API key in each fixed one-minute window (windows
 * start on the minute, UTC). Two stores behind one interface:
 *
 * - MemoryRateLimiter: one process (SQLite installations) counts in a Map. No I/O on the request path.
 * - SharedRateLimiter: server instances on one PostgreSQL database share the count in
 *   `rate_limit_counters`. An instance does not write every request: it claims a small batch of the
 *   window's allowance with one atomic upsert and spends it locally, so the database sees one write per
 *   batch. The batch is limit/20 (1 for limits under 40, at most 100): small limits are exact; with large
 *   ones an instance may hold at most one unspent batch that the others cannot use in that window.
 *
 * `take` answers synchronously whenever no database round trip is needed, to keep the hot path cheap.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { fullDiskCode } from '../storage-full.js';

export const WINDOW_MS = 60_000;

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in this window after this one. */
  readonly remaining: number;
  /** When the window ends (ms since the epoch). */
  readonly resetAt: number;
}

export interface RateLimiter {
  readonly limit: number;
  take(keyId: string, nowMs: number): RateDecision | Promise<RateDecision>;
}

/** Drop state of past windows once there is this much of it. */
const SWEEP_AT = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, { minute: number; count: number }>();

  constructor(readonly limit: number) {}

  take(keyId: string, nowMs: number): RateDecision {
    const minute = Math.floor(nowMs / WINDOW_MS);
    const resetAt = (minute + 1) * WINDOW_MS;
    let counter = this.counters.get(keyId);
    if (counter === undefined || counter.minute !== minute) {
      if (counter === undefined && this.counters.size >= SWEEP_AT) this.sweep(minute);
      counter = { minute, count: 0 };
      this.counters.set(keyId, counter);
    }
    if (counter.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetAt };
    counter.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - counter.count, resetAt };
  }

  private sweep(minute: number): void {
    for (const [key, counter] of this.counters) if (counter.minute !== minute) this.counters.delete(key);
  }
}

interface Lease {
  readonly minute: number;
  /** Claimed from the shared count and not spent yet. */
  tokens: number;
  /** The shared count after our last claim (includes our unspent tokens). */
  shared: number;
  /** The window's allowance is gone: refuse without asking the database again. */
  exhausted: boolean;
  pending: Promise<void> | undefined;
}

export class SharedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly batch: number;
  private sweptMinute = 0;

  constructor(
    private readonly db: Kysely<Database>,
    readonly limit: number,
  ) {
    this.batch = Math.max(1, Math.min(100, Math.floor(limit / 20)));
  }

  take(keyId: string, nowMs: number): RateDecision | Promise<RateDecision> {
    const minute = Math.floor(nowMs / WINDOW_MS);
    const resetAt = (minute + 1) * WINDOW_MS;
    let lease = this.leases.get(keyId);
    if (lease === undefined || lease.minute !== minute) {
      if (lease === undefined && this.leases.size >= SWEEP_AT) this.sweepLeases(minute);
      lease = { minute, tokens: 0, shared: 0, exhausted: false, pending: undefined };
      this.leases.set(keyId, lease);
      this.sweepTable(minute);
    }
    if (lease.tokens > 0) {
      lease.tokens--;
      return {
        allowed: true,
        limit: this.limit,
        remaining: Math.max(0, this.limit - lease.shared) + lease.tokens,
        resetAt,
      };
    }
    if (lease.exhausted) return { allowed: false, limit: this.limit, remaining: 0, resetAt };
    const claimed = lease;
    claimed.pending ??= this.claim(keyId, claimed).finally(() => {
      claimed.pending = undefined;
    });
    return claimed.pending.then(() => this.take(keyId, nowMs));
  }

  /** One atomic upsert: add a batch to the shared count and keep what fitted under the limit. */
  private async claim(keyId: string, lease: Lease): Promise<void> {
    let after: number;
    try {
      const row = await this.db
        .insertInto('rate_limit_counters')
        .values({ key_id: keyId, minute: lease.minute, count: this.batch })
        .onConflict((oc) =>
          oc
            .columns(['key_id', 'minute'])
            .doUpdateSet({ count: sql<number>`rate_limit_counters.count + ${this.batch}` }),
        )
        .returning('count')
        .executeTakeFirstOrThrow();
      after = Number(row.count);
    } catch (error) {
      // A full disk (a window's first claim inserts a row) must not refuse reads: count this window here, on
      // top of what was claimed already, so the instance still keeps to the limit on its own.
      if (fullDiskCode(error) === undefined) throw error;
      after = lease.shared + this.batch;
    }
    const before = after - this.batch;
    const granted = Math.max(0, Math.min(this.batch, this.limit - before));
    lease.tokens += granted;
    lease.shared = Math.min(after, this.limit);
    if (after >= this.limit) lease.exhausted = true;
  }

  private sweepLeases(minute: number): void {
    for (const [key, lease] of this.leases) {
      if (lease.minute !== minute && lease.pending === undefined) this.leases.delete(key);
    }
  }

  /** Old windows are useless: each instance deletes them about once a minute, off the request path. */
  private sweepTable(minute: number): void {
    if (minute <= this.sweptMinute) return;
    this.sweptMinute = minute;
    this.db
      .deleteFrom('rate_limit_counters')
      .where('minute', '<', minute - 1)
      .execute()
      .catch(() => undefined);
  }
}

export function createRateLimiter(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  limit: number,
): RateLimiter | undefined {
  if (limit <= 0) return undefined;
  return dialect === 'postgres' ? new SharedRateLimiter(db, limit) : new MemoryRateLimiter(limit);
}
