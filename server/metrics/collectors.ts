/**
 * Gauges read from the database when Prometheus scrapes: the job queue, the webhook backlog and the mail
 * outbox. Each is one COUNT (or MIN) query per scrape, on indexed columns where the table grows without
 * bound (jobs by state and run_at, deliveries by status); the outbox is grouped by status in one pass. A
 * failing query leaves its gauge empty for that scrape rather than failing the whole scrape: the HTTP and
 * process metrics still arrive while the database is down (readiness reports the database itself).
 */
import { Gauge } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { Metrics } from './registry.js';

export interface CollectorSource {
  readonly db: Kysely<Database>;
  readonly now: () => Date;
}

/** Runs `read`; on an error the gauge is emptied (no stale value is reported as current). */
async function guarded(gauge: Gauge<string>, read: () => Promise<void>): Promise<void> {
  try {
    gauge.reset();
    await read();
  } catch {
    gauge.reset();
  }
}

export function registerQueueCollectors(metrics: Metrics, source: CollectorSource): void {
  const registers = [metrics.registry];
  const { db } = source;

  const depth: Gauge<'kind'> = new Gauge({
    name: 'mohar_job_queue_depth',
    help: 'Jobs queued and due now, by kind (running and future ones not counted)',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      await guarded(depth, async () => {
        const rows = await db
          .selectFrom('jobs')
          .select(['kind', (eb) => eb.fn.countAll<number | string>().as('n')])
          .where('state', '=', 'queued')
          .where('run_at', '<=', source.now().toISOString())
          .groupBy('kind')
          .execute();
        for (const row of rows) depth.set({ kind: row.kind }, Number(row.n));
      });
    },
  });

  const oldest: Gauge = new Gauge({
    name: 'mohar_job_queue_oldest_age_seconds',
    help: 'How long the oldest due job has been waiting (0 when none is due)',
    registers,
    async collect() {
      await guarded(oldest, async () => {
        const now = source.now();
        const row = await db
          .selectFrom('jobs')
          .select((eb) => eb.fn.min('run_at').as('oldest'))
          .where('state', '=', 'queued')
          .where('run_at', '<=', now.toISOString())
          .executeTakeFirst();
        const at = row?.oldest ? Date.parse(String(row.oldest)) : NaN;
        oldest.set(Number.isNaN(at) ? 0 : Math.max(0, (now.getTime() - at) / 1000));
      });
    },
  });

  const jobs: Gauge<'state'> = new Gauge({
    name: 'mohar_jobs',
    help: 'Jobs running now and dead letters (jobs out of attempts)',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      await guarded(jobs, async () => {
        for (const state of ['running', 'dead'] as const) {
          const row = await db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('state', '=', state)
            .executeTakeFirstOrThrow();
          jobs.set({ state }, Number(row.n));
        }
      });
    },
  });

  const backlog: Gauge<'status'> = new Gauge({
    name: 'mohar_webhook_backlog',
    help: 'Webhook deliveries not finished: pending (due or waiting for a retry) and delivering',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      await guarded(backlog, async () => {
        for (const status of ['pending', 'delivering'] as const) {
          const row = await db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('status', '=', status)
            .executeTakeFirstOrThrow();
          backlog.set({ status }, Number(row.n));
        }
      });
    },
  });

  const outbox: Gauge<'status'> = new Gauge({
    name: 'mohar_mail_outbox',
    help: 'Mails in the outbox by status (queued, sent, failed, kept: no SMTP server configured)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      await guarded(outbox, async () => {
        const rows = await db
          .selectFrom('outbox_mail')
          .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
          .groupBy('status')
          .execute();
        for (const status of ['queued', 'sent', 'failed', 'kept'] as const) outbox.set({ status }, 0);
        for (const row of rows) outbox.set({ status: row.status }, Number(row.n));
      });
    },
  });
}
