/**
 * The durable job `retention.purge`, hourly like the other sweeps: each run enqueues the next (one per hour slot,
 * deduped, so several instances on one PostgreSQL database run it once), then purges the envelopes that are due,
 * in batches. Even if two runs overlap (a run still going when the next slot's starts on another instance), each
 * envelope is purged, audited and announced once: purgeEnvelope claims it with a conditional UPDATE.
 *
 * Due: finished (completed, declined, voided, expired), not purged, not on legal hold, and finished (completed_at,
 * else updated_at, which nothing changes after an envelope finished) more than its retention days ago: the
 * template's retention_days when it was made from a template that has one, else the account's.
 */
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { defineJob, enqueue, jobKind } from '../../jobs/definition.js';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { PURGEABLE_STATUSES, purgeEnvelope } from './purge-envelope.js';

export const RETENTION_PURGE_JOB = jobKind('retention.purge', Type.Object({}));
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Envelopes looked up per query: small, so each transaction and each scan stays short. */
export const PURGE_BATCH = 50;
/** A run stops after this many, so it ends well within the job timeout; the next hour's run goes on. */
const MAX_PER_RUN = 2000;

/** Enqueues the purge for the hour slot after `now` (idempotent: one job per slot). */
export async function scheduleRetentionPurge(db: Kysely<Database>, now: Date): Promise<void> {
  const runAt = new Date(Math.ceil((now.getTime() + 1) / HOUR_MS) * HOUR_MS);
  await enqueue(
    db,
    RETENTION_PURGE_JOB,
    {},
    { runAt, dedupeKey: `${RETENTION_PURGE_JOB.kind}:${runAt.toISOString()}`, now },
  );
}

export const retentionPurgeJob = defineJob(RETENTION_PURGE_JOB, async (ctx: Context, _payload, info) => {
  // The next slot first: a failing run is retried by the runner without breaking the chain.
  await scheduleRetentionPurge(ctx.db, ctx.now());
  await purgeDueEnvelopes(ctx, { signal: info.signal });
});

interface Due {
  id: string;
  days: number;
  template_days: number | null;
}

/** The retention periods in use: one search per distinct value (accounts and templates share few). */
async function periodsInUse(db: Kysely<Database>): Promise<number[]> {
  const accounts = await db.selectFrom('accounts').select('retention_days').distinct().execute();
  const templates = await db.selectFrom('templates').select('retention_days').distinct().execute();
  const days = [...accounts, ...templates].flatMap((r) => (r.retention_days == null ? [] : [Number(r.retention_days)]));
  return [...new Set(days)].sort((a, b) => a - b);
}

/** Up to `limit` envelopes due under a retention of `days` days. */
async function dueUnder(db: Kysely<Database>, days: number, now: Date, limit: number): Promise<Due[]> {
  const cutoff = iso(new Date(now.getTime() - days * DAY_MS));
  const rows = await db
    .selectFrom('envelopes as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .leftJoin('templates as t', 't.id', 'e.template_id')
    .select(['e.id', 't.retention_days as template_days'])
    .where('e.status', 'in', PURGEABLE_STATUSES)
    .where('e.purged_at', 'is', null)
    .where('e.legal_hold_at', 'is', null)
    .where((eb) => eb(eb.fn.coalesce('t.retention_days', 'a.retention_days'), '=', days))
    .where((eb) => eb(eb.fn.coalesce('e.completed_at', 'e.updated_at'), '<', cutoff))
    .orderBy('e.updated_at')
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, days, template_days: r.template_days == null ? null : Number(r.template_days) }));
}

export interface PurgeRun {
  /** Envelopes this run purged (others' runs may have taken some of the due ones). */
  readonly purged: readonly string[];
}

/** Purges every envelope due now (up to MAX_PER_RUN), batch by batch. */
export async function purgeDueEnvelopes(
  ctx: Context,
  options: { signal?: AbortSignal; batch?: number } = {},
): Promise<PurgeRun> {
  const now = ctx.now();
  const batch = options.batch ?? PURGE_BATCH;
  const purged: string[] = [];
  const tried = new Set<string>();
  for (const days of await periodsInUse(ctx.db)) {
    for (;;) {
      if (options.signal?.aborted || tried.size >= MAX_PER_RUN) return { purged };
      // Envelopes another runner took meanwhile drop out of the search by themselves (purged_at is set).
      const due = (await dueUnder(ctx.db, days, now, batch)).filter((d) => !tried.has(d.id));
      if (due.length === 0) break;
      for (const d of due) {
        tried.add(d.id);
        const reason = { retentionDays: d.days, policy: d.template_days === null ? 'account' : 'template' } as const;
        if (await purgeEnvelope(ctx, d.id, reason)) purged.push(d.id);
      }
    }
  }
  return { purged };
}
