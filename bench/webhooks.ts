/**
 * Webhook benchmark (`npm run bench -- webhooks`): event-to-receiver delivery, on SQLite and PostgreSQL.
 *
 * For each database: a throwaway database, the real runtime (`openRuntime`), one account whose webhook
 * (`registerWebhook`, MOHAR_WEBHOOK_ALLOW_PRIVATE=1) points at a receiver in a child process
 * (bench/webhook-receiver.ts: checks every signature, notes arrival times, answers 204), and 1,000 envelopes.
 * Events are recorded exactly as the workflow records them (`recordEvent` in its own transaction: event row,
 * audit row, fan-out to the delivery), round-robin over the envelopes, so per-envelope ordering is in play.
 *
 *  1. drain: 10,000 events recorded with the worker stopped, then the worker (`webhookWorkerFor`, as
 *     `startServer` runs it) is started; deliveries/s = 10,000 / time until the receiver has them all.
 *  2. steady: 10,000 more events at 200 events/s with the worker running, each recorded on schedule as a
 *     request would (not waiting for the previous one; at most 32 at once); latency of each event = its
 *     arrival at the receiver − the commit of the transaction that recorded it (when the event came to
 *     exist); also reported from the start of that transaction (recording included).
 *
 * Afterwards the database must show every delivery succeeded with exactly one attempt each, and the
 * receiver no invalid signature and no duplicate.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import type { Context } from '../server/domain/context.js';
import { createEnvelope } from '../server/domain/envelopes/create-envelope.js';
import { recordEvent } from '../server/domain/workflow/events.js';
import { openRuntime } from '../server/runtime.js';
import { registerWebhook } from '../server/domain/webhooks/register-endpoint.js';
import { webhookWorkerFor } from '../server/webhooks/worker.js';
import { createTestDatabase } from '../test/support/databases.js';
import { DISTURBED_CORES, startCpuAccount, waitForQuiet, type CpuAccount } from './cpu.js';
import {
  backendPids,
  databasesOf,
  engineVersion,
  fixed,
  table,
  type BenchOptions,
  type DatabaseChoice,
} from './support.js';

/** The targets, binding on SQLite; PostgreSQL is reported against them. */
export const WEBHOOK_TARGETS = { deliveriesPerSec: 500, steadyEventsPerSec: 200, p99Ms: 250 } as const;

/** Events per phase (MOHAR_BENCH_WEBHOOK_EVENTS overrides, for quick trials). */
const EVENTS = Number(process.env.MOHAR_BENCH_WEBHOOK_EVENTS ?? 10_000);
const ENVELOPES = 1000;
const PHASE_LIMIT_MS = 180_000;

const now = (): number => performance.timeOrigin + performance.now();
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

export interface LatencyStats {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface WebhookRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  /**
   * cpu: the server's event-loop thread and the database processes per delivery, and the cores others took meanwhile.
   */
  drain?: {
    events: number;
    recordMs: number;
    recordedPerSec: number;
    deliverMs: number;
    deliveriesPerSec: number;
    cpu: CpuAccount | undefined;
  };
  /** latency: from the commit of the event; fromStart: from the start of the transaction that recorded it. */
  steady?: {
    events: number;
    targetRate: number;
    achievedRate: number;
    latency: LatencyStats;
    fromStart: LatencyStats;
    cpu: CpuAccount | undefined;
  };
  receiver?: { invalidSignatures: number; duplicates: number };
  check?: { deliveries: Record<string, number>; attempts: number };
  targetsMet?: { deliveriesPerSec: boolean; p99: boolean };
  /** Runs made: more than one when other processes disturbed the earlier ones (the least disturbed is kept). */
  attempts?: number;
  ok: boolean;
}

/** Cores other processes took during the run's worse phase. */
function disturbance(run: WebhookRun): number {
  return Math.max(run.drain?.cpu?.cores.others ?? 0, run.steady?.cpu?.cores.others ?? 0);
}

function stats(values: number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);
  return { count: sorted.length, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: round(sorted.at(-1) ?? NaN) };
}

interface Receiver {
  readonly port: number;
  send(message: object): void;
  /** Resolves when the receiver has `count` distinct events of the current phase. */
  reach(count: number, limitMs: number): Promise<void>;
  report(): Promise<{ arrivals: Map<string, number>; invalid: number; duplicates: number }>;
  stop(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) =>
      m.type === 'ready' ? resolve(m.port) : reject(new Error('receiver: unexpected message')),
    );
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
  });
  const next = <T>(type: string, limitMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the receiver within ${limitMs} ms`)), limitMs);
      const listener = (m: { type: string }) => {
        if (m.type !== type) return;
        clearTimeout(timer);
        child.off('message', listener);
        resolve(m as T);
      };
      child.on('message', listener);
    });
  return {
    port,
    send: (message) => child.send(message),
    reach(count, limitMs) {
      const reached = next<void>('reached', limitMs);
      child.send({ type: 'expect', count });
      return reached;
    },
    async report() {
      const reply = next<{ arrivals: [string, number][]; invalid: number; duplicates: number }>('report', 30_000);
      child.send({ type: 'report' });
      const r = await reply;
      return { arrivals: new Map(r.arrivals), invalid: r.invalid, duplicates: r.duplicates };
    },
    stop: () => child.send({ type: 'stop' }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function processTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the database's backends over a phase, counting backends that appeared meanwhile (the worker's
 * own connections open after it starts, which startCpuAccount's fixed list would miss and call "others").
 */
async function dbCpuSeconds(ctx: Context): Promise<() => Promise<number>> {
  const before = new Map((await backendPids(ctx)).map((pid) => [pid, processTicks(pid) ?? 0]));
  return async () => {
    let ticks = 0;
    for (const pid of await backendPids(ctx)) ticks += (processTicks(pid) ?? 0) - (before.get(pid) ?? 0);
    return ticks / 100;
  };
}

/** startCpuAccount's figures with the database part from dbCpuSeconds. */
function withDbCpu(
  cpu: CpuAccount | undefined,
  dbSeconds: number,
  seconds: number,
  deliveries: number,
): CpuAccount | undefined {
  if (!cpu) return undefined;
  const missed = dbSeconds - (cpu.dbUsPerRequest * deliveries) / 1e6;
  return {
    ...cpu,
    dbUsPerRequest: round((dbSeconds / deliveries) * 1e6),
    cores: {
      ...cpu.cores,
      db: round(dbSeconds / seconds, 2),
      others: round(Math.max(0, cpu.cores.others - missed / seconds), 2),
    },
  };
}

async function benchDatabase(kind: DatabaseChoice): Promise<WebhookRun> {
  const database = await createTestDatabase(kind);
  const receiver = await startReceiver();
  try {
    const config = parseConfig({
      MOHAR_DATA_DIR: database.dataDir,
      MOHAR_DATABASE_URL: database.databaseUrl,
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_WEBHOOK_ALLOW_PRIVATE: '1',
    });
    const runtime = await openRuntime(config);
    const ctx: Context = runtime.ctx;
    try {
      const engine = await engineVersion(ctx);
      const { accountId } = await createAccount(ctx, {
        name: 'Bench',
        email: 'bench@example.com',
        password: 'bench-password-0123',
      });
      const envelopes: string[] = [];
      for (let i = 0; i < ENVELOPES; i++) {
        envelopes.push(
          (
            await createEnvelope(ctx, accountId, {
              title: `Bench ${i}`,
              recipients: [{ name: 'Asha', email: 'asha@example.com' }],
            })
          ).id,
        );
      }
      // Registered after the envelopes, so their envelope.created events queue no deliveries: the phases below
      // deliver exactly the events they record (2 x EVENTS, which the check at the end counts).
      const webhook = await registerWebhook(ctx, accountId, `http://127.0.0.1:${receiver.port}/hooks`);
      receiver.send({ type: 'secret', secret: webhook.webhook_secret });
      let n = 0;
      const record = async (): Promise<string> => {
        const envelopeId = envelopes[n++ % envelopes.length]!;
        return ctx.db
          .transaction()
          .execute(
            async (trx) =>
              (
                await recordEvent(
                  trx,
                  accountId,
                  envelopeId,
                  'recipient.viewed',
                  { envelope: { id: envelopeId, title: 'Bench', status: 'sent', external_id: null, metadata: null } },
                  new Date().toISOString(),
                )
              ).id,
          );
      };

      // 1. drain
      const recordStart = now();
      for (let i = 0; i < EVENTS; i++) await record();
      const recordMs = now() - recordStart;
      const worker = webhookWorkerFor(ctx, { logger: { warn: () => undefined, error: (o, m) => console.error(m, o) } });
      const drained = receiver.reach(EVENTS, PHASE_LIMIT_MS);
      // As autovacuum would have by now on a live system: statistics of the freshly filled tables, so the
      // planner knows the pending deliveries are many (without them the first claims take ~18 ms, not ~1 ms).
      if (ctx.dialect === 'postgres') await sql`analyze`.execute(ctx.db);
      const drainCpu = startCpuAccount(await backendPids(ctx));
      const drainDb = await dbCpuSeconds(ctx);
      const deliverStart = now();
      worker.start();
      await drained;
      const deliverMs = now() - deliverStart;
      const drainCpuUsed = withDbCpu(drainCpu(EVENTS), await drainDb(), deliverMs / 1000, EVENTS);
      const first = await receiver.report();

      // 2. steady 200 events/s with the worker running
      const starts = new Map<string, { started: number; committed: number }>();
      const steadyDone = receiver.reach(EVENTS, PHASE_LIMIT_MS);
      const steadyCpu = startCpuAccount(await backendPids(ctx));
      const steadyDb = await dbCpuSeconds(ctx);
      const steadyStart = now();
      // Events come as from concurrent requests: each recorded on schedule, without waiting for the previous one
      // (at most 32 transactions in flight).
      let recorded = 0;
      const inFlight = new Set<Promise<void>>();
      while (recorded < EVENTS) {
        const due = Math.min(
          EVENTS,
          Math.floor(((now() - steadyStart) / 1000) * WEBHOOK_TARGETS.steadyEventsPerSec) + 1,
        );
        while (recorded < due) {
          if (inFlight.size >= 32) await Promise.race(inFlight);
          const started = now();
          const one: Promise<void> = record()
            .then((id) => void starts.set(id, { started, committed: now() }))
            .finally(() => inFlight.delete(one));
          inFlight.add(one);
          recorded++;
        }
        await sleep(Math.max(0, steadyStart + (recorded / WEBHOOK_TARGETS.steadyEventsPerSec) * 1000 - now()));
      }
      await Promise.all(inFlight);
      const producedMs = now() - steadyStart;
      await steadyDone;
      const steadyCpuUsed = withDbCpu(steadyCpu(EVENTS), await steadyDb(), (now() - steadyStart) / 1000, EVENTS);
      const second = await receiver.report();
      await worker.stop();

      const latencies = [...starts].map(([id, t]) => (second.arrivals.get(id) ?? NaN) - t.committed);
      const fromStart = [...starts].map(([id, t]) => (second.arrivals.get(id) ?? NaN) - t.started);
      const states = await ctx.db
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const attempts = await sql<{ n: number | string }>`select count(*) as n from webhook_attempts`.execute(ctx.db);
      const deliveries = Object.fromEntries(states.map((s) => [s.status, Number(s.n)]));
      const attemptCount = Number(attempts.rows[0]?.n ?? 0);
      const latency = stats(latencies);
      const deliveriesPerSec = round(EVENTS / (deliverMs / 1000));
      const invalid = first.invalid + second.invalid;
      const duplicates = first.duplicates + second.duplicates;
      const ok =
        invalid === 0 &&
        duplicates === 0 &&
        deliveries.succeeded === 2 * EVENTS &&
        Object.keys(deliveries).length === 1 &&
        attemptCount === 2 * EVENTS &&
        latencies.every(Number.isFinite);
      return {
        database: kind,
        engine,
        drain: {
          events: EVENTS,
          recordMs: round(recordMs, 0),
          recordedPerSec: round(EVENTS / (recordMs / 1000)),
          deliverMs: round(deliverMs, 0),
          deliveriesPerSec,
          cpu: drainCpuUsed,
        },
        steady: {
          events: EVENTS,
          targetRate: WEBHOOK_TARGETS.steadyEventsPerSec,
          achievedRate: round(EVENTS / (producedMs / 1000)),
          latency,
          fromStart: stats(fromStart),
          cpu: steadyCpuUsed,
        },
        receiver: { invalidSignatures: invalid, duplicates },
        check: { deliveries, attempts: attemptCount },
        targetsMet: {
          deliveriesPerSec: deliveriesPerSec >= WEBHOOK_TARGETS.deliveriesPerSec,
          p99: latency.p99Ms <= WEBHOOK_TARGETS.p99Ms,
        },
        ok,
      };
    } finally {
      await runtime.close();
    }
  } catch (error) {
    return { database: kind, engine: '?', error: error instanceof Error ? error.message : String(error), ok: false };
  } finally {
    receiver.stop();
    await database.drop();
  }
}

export async function runWebhooks(options: BenchOptions): Promise<{ runs: WebhookRun[]; ok: boolean }> {
  const kinds = databasesOf(options);
  const runs: WebhookRun[] = [];
  for (const kind of kinds) {
    process.stdout.write(
      `  ${kind}: ${EVENTS} events drained, then ${EVENTS} at ${WEBHOOK_TARGETS.steadyEventsPerSec}/s…\n`,
    );
    let best = await benchDatabase(kind);
    for (let attempt = 2; attempt <= options.retries + 1 && best.ok && disturbance(best) > DISTURBED_CORES; attempt++) {
      process.stdout.write(
        `    disturbed (other processes took ${disturbance(best)} cores); waiting for quiet and repeating…\n`,
      );
      await waitForQuiet(120);
      const next = await benchDatabase(kind);
      best =
        !next.ok || disturbance(next) >= disturbance(best)
          ? { ...best, attempts: attempt }
          : { ...next, attempts: attempt };
    }
    runs.push(best);
  }
  return { runs, ok: runs.every((r) => r.ok) };
}

export function printWebhooks(report: { runs: WebhookRun[] }): void {
  const rows = report.runs.map((r) =>
    r.error
      ? [r.database, r.engine, `ERROR: ${r.error}`, '', '', '', '', '', '', '', '', '', '']
      : [
          r.database,
          r.engine,
          fixed(r.drain!.deliveriesPerSec),
          r.drain!.cpu ? `${fixed(r.drain!.cpu.serverUsPerRequest)}+${fixed(r.drain!.cpu.dbUsPerRequest)}` : '?',
          r.drain!.cpu ? fixed(r.drain!.cpu.cores.others, 2) : '?',
          fixed(r.drain!.recordedPerSec),
          fixed(r.steady!.achievedRate, 1),
          fixed(r.steady!.latency.p50Ms, 1),
          fixed(r.steady!.latency.p90Ms, 1),
          fixed(r.steady!.latency.p99Ms, 1),
          fixed(r.steady!.latency.maxMs, 1),
          fixed(r.steady!.fromStart.p99Ms, 1),
          `${r.receiver!.duplicates}/${r.receiver!.invalidSignatures}`,
        ],
  );
  console.log(
    table(
      [
        'database',
        'engine',
        'deliveries/s',
        'cpu µs/dlv srv+db',
        'others',
        'recorded/s',
        'steady ev/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'p99 incl. recording',
        'dup/invalid',
      ],
      rows,
    ),
  );
  for (const r of report.runs) {
    if (!r.targetsMet) continue;
    const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
    console.log(
      `  ${r.database}: >= ${WEBHOOK_TARGETS.deliveriesPerSec} deliveries/s ${verdict(r.targetsMet.deliveriesPerSec)}; p99 <= ${WEBHOOK_TARGETS.p99Ms} ms at ${WEBHOOK_TARGETS.steadyEventsPerSec} events/s ${verdict(r.targetsMet.p99)}${r.database === 'sqlite' ? '' : ' (reported, binding on SQLite)'}; deliveries ${JSON.stringify(r.check!.deliveries)}, attempts ${r.check!.attempts}`,
    );
  }
}
