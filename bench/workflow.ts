/**
 * Workflow benchmark (`npm run bench -- workflow`): one-signer electronic envelopes completed end to end
 * over HTTP, on SQLite and on PostgreSQL.
 *
 * For each database: a throwaway database, the real runtime (`openRuntime`, the installation seal created
 * up front as `startServer` does), the real app (`buildServerApp`, log level warn) on 127.0.0.1:0, and
 * the job runner started (`jobRunnerFor(ctx).start()`), so the invitation and completion mails and the
 * completion job run as in production (no SMTP: the mails are kept in the outbox). A load client in a
 * child process (bench/workflow-load.ts) drives 20 warm-up envelopes, then 500 measured ones, 10 at a
 * time: create → upload the 1-page PDF → PUT a Signature field → send → signing session → sign act,
 * which must answer `envelope_status: 'completed'` (no TSA: PAdES B-B, the certificate of completion
 * issued inside the act). Afterwards it waits for the job queue to drain and checks the database:
 * every envelope completed with a certificate, every mail kept, no dead job.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { API_BASE } from '../common/api-paths.js';
import { buildServerApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import type { Context } from '../server/domain/context.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import { jobRunnerFor } from '../server/start.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { startCpuAccount } from './cpu.js';
import {
  backendPids,
  perDatabase,
  engineVersion,
  fixed,
  table,
  type BenchOptions,
  type DatabaseChoice,
} from './support.js';
import { startLoadClient, STEPS, type EnvelopeFailure, type LoadResult, type Step } from './workflow-load.js';

/** The issue's targets: binding on SQLite, PostgreSQL reported against the same numbers. */
export const WORKFLOW_TARGETS = { envelopesPerSec: 25, signP99Ms: 150 } as const;

/** Measured envelopes per database (MOHAR_BENCH_ENVELOPES overrides, for quick trials). */
const ENVELOPES = Number(process.env.MOHAR_BENCH_ENVELOPES ?? 500);
const WARMUP_ENVELOPES = 20;
/** How long to wait, after the last envelope, for the mail and completion jobs to finish. */
const DRAIN_LIMIT_MS = 60_000;

export interface LatencyStats {
  count: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface WorkflowRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  envelopes?: number;
  concurrency?: number;
  completed?: number;
  failures?: EnvelopeFailure[];
  wallMs?: number;
  envelopesPerSec?: number;
  /** Client-side latency of each step (call to last body byte), successful envelopes only. */
  steps?: Record<Step, LatencyStats>;
  /** Fastify's own handler time (reply.elapsedTime) of each route, measured run only. */
  serverSteps?: Record<string, LatencyStats>;
  /** How many sign acts were in flight when one started: mean and max. */
  signConcurrency?: { mean: number; max: number };
  /** The server process's event-loop delay during the measured run. */
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
  /** CPU per completed envelope (ms) and cores busy on average during the measured run. */
  cpu?: {
    serverThreadMsPerEnvelope: number;
    serverProcessMsPerEnvelope: number;
    dbMsPerEnvelope: number;
    clientMsPerEnvelope: number;
    cores: { server: number; db: number; client: number; others: number };
  };
  /** Time from the last sign act to an empty job queue (ms). */
  jobsDrainMs?: number;
  /** What the database holds afterwards (warm-up envelopes included). */
  check?: {
    envelopes: Record<string, number>;
    certificates: number;
    mail: Record<string, number>;
    jobs: Record<string, number>;
  };
  warmup?: { completed: number; failures: number; wallMs: number };
  targetsMet?: { envelopesPerSec: boolean; signP99: boolean };
  ok: boolean;
}

export interface WorkflowReport {
  runs: WorkflowRun[];
  ok: boolean;
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Nearest-rank percentiles. */
export function latencyStats(values: readonly number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number =>
    sorted.length === 0
      ? Number.NaN
      : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    count: sorted.length,
    meanMs: round(mean),
    p50Ms: round(at(50)),
    p90Ms: round(at(90)),
    p99Ms: round(at(99)),
    maxMs: round(at(100)),
  };
}

async function countBy(
  ctx: Context,
  table: 'envelopes' | 'outbox_mail' | 'jobs',
  column: 'status' | 'state',
  extra?: 'kind',
): Promise<Record<string, number>> {
  const rows = await sql<{
    k: string;
    n: number | string;
  }>`select ${sql.ref(column)}${extra ? sql` || ':' || ${sql.ref(extra)}` : sql``} as k, count(*) as n from ${sql.table(table)} group by 1 order by 1`.execute(
    ctx.db,
  );
  return Object.fromEntries(rows.rows.map((r) => [r.k, Number(r.n)]));
}

async function waitForJobs(ctx: Context, limitMs: number): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    const r = await sql<{
      n: number | string;
    }>`select count(*) as n from jobs where state in ('queued', 'running')`.execute(ctx.db);
    if (Number(r.rows[0]?.n ?? 0) === 0) return round(performance.now() - started, 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

async function benchDatabase(kind: DatabaseChoice, concurrency: number): Promise<WorkflowRun> {
  const database = await createTestDatabase(kind);
  try {
    const config = parseConfig({
      MOHAR_DATA_DIR: database.dataDir,
      MOHAR_DATABASE_URL: database.databaseUrl,
      MOHAR_HOST: '127.0.0.1',
      MOHAR_PORT: '0',
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    const runtime = await openRuntime(config);
    const { ctx } = runtime;
    try {
      const account = await createAccount(ctx, {
        name: 'Bench',
        email: 'bench@example.com',
        password: 'bench-password-0123',
      });
      const { api_key: key } = await generateApiKey(ctx, account.accountId, 'live');
      // As startServer does: the installation seal exists before the first completion.
      await ctx.seal();
      const { app, inFlight } = await buildServerApp(ctx);
      let recording = false;
      const serverTimes = new Map<string, number[]>();
      app.addHook('onResponse', async (request, reply) => {
        if (!recording) return;
        const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
        let list = serverTimes.get(route);
        if (!list) serverTimes.set(route, (list = []));
        list.push(reply.elapsedTime);
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const runner = jobRunnerFor(ctx, { logger: app.log });
      runner.start();
      const client = await startLoadClient();
      try {
        const address = app.server.address();
        if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
        const api = `http://127.0.0.1:${address.port}${API_BASE}`;

        process.stdout.write(`  ${kind}: ${WARMUP_ENVELOPES} warm-up envelopes…\n`);
        const warm = await client.run({ api, key, count: WARMUP_ENVELOPES, concurrency, label: 'warmup' });
        await waitForJobs(ctx, DRAIN_LIMIT_MS);

        process.stdout.write(`  ${kind}: ${ENVELOPES} envelopes, ${concurrency} at a time…\n`);
        const delay = monitorEventLoopDelay({ resolution: 5 });
        const cpu = startCpuAccount(await backendPids(ctx));
        recording = true;
        delay.enable();
        const load: LoadResult = await client.run({ api, key, count: ENVELOPES, concurrency, label: 'run' });
        delay.disable();
        recording = false;
        const cpuAccount = cpu(Math.max(1, load.completed));
        const wallSeconds = load.wallMs / 1000;
        const processCpuMs = cpuAccount ? cpuAccount.cores.bench * wallSeconds * 1000 : Number.NaN;
        const jobsDrainMs = await waitForJobs(ctx, DRAIN_LIMIT_MS);

        const check = {
          envelopes: await countBy(ctx, 'envelopes', 'status'),
          certificates: Number(
            (
              await sql<{
                n: number | string;
              }>`select count(*) as n from envelopes where certificate_sha256 is not null`.execute(ctx.db)
            ).rows[0]?.n ?? 0,
          ),
          mail: await countBy(ctx, 'outbox_mail', 'status', 'kind'),
          jobs: await countBy(ctx, 'jobs', 'state'),
        };
        const total = ENVELOPES + WARMUP_ENVELOPES;
        const problems: string[] = [];
        if (load.failures.length > 0 || load.completed !== ENVELOPES) {
          problems.push(`${load.failures.length} of ${ENVELOPES} envelopes failed`);
        }
        if (warm.failures.length > 0) problems.push(`${warm.failures.length} warm-up envelopes failed`);
        if (jobsDrainMs === undefined) problems.push(`the job queue did not drain within ${DRAIN_LIMIT_MS / 1000} s`);
        if ((check.envelopes.completed ?? 0) !== total) {
          problems.push(`${check.envelopes.completed ?? 0} of ${total} envelopes completed in the database`);
        }
        if (check.certificates !== total) {
          problems.push(`${check.certificates} of ${total} certificates of completion issued`);
        }
        if ((check.jobs.dead ?? 0) > 0) problems.push(`${check.jobs.dead} dead jobs`);
        const notKept = Object.entries(check.mail)
          .filter(([k]) => !k.startsWith('kept:'))
          .reduce((n, [, v]) => n + v, 0);
        if (notKept > 0) problems.push(`${notKept} mails not kept`);

        const steps = Object.fromEntries(STEPS.map((s) => [s, latencyStats(load.latencies[s])])) as Record<
          Step,
          LatencyStats
        >;
        const envelopesPerSec = round(load.completed / wallSeconds, 2);
        const clientCores = load.clientCpuMs / 1000 / wallSeconds;
        return {
          database: kind,
          engine: await engineVersion(ctx),
          ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
          envelopes: ENVELOPES,
          concurrency,
          completed: load.completed,
          failures: load.failures,
          wallMs: round(load.wallMs, 0),
          envelopesPerSec,
          steps,
          serverSteps: Object.fromEntries([...serverTimes].map(([route, times]) => [route, latencyStats(times)])),
          signConcurrency: {
            mean: round(load.signConcurrency.reduce((a, b) => a + b, 0) / Math.max(1, load.signConcurrency.length), 2),
            max: Math.max(0, ...load.signConcurrency),
          },
          eventLoopDelayMs: {
            p50: round(delay.percentile(50) / 1e6),
            p99: round(delay.percentile(99) / 1e6),
            max: round(delay.max / 1e6),
          },
          ...(cpuAccount
            ? {
                cpu: {
                  serverThreadMsPerEnvelope: round(cpuAccount.serverUsPerRequest / 1000, 2),
                  serverProcessMsPerEnvelope: round(processCpuMs / Math.max(1, load.completed), 2),
                  dbMsPerEnvelope: round(cpuAccount.dbUsPerRequest / 1000, 2),
                  clientMsPerEnvelope: round(load.clientCpuMs / Math.max(1, load.completed), 2),
                  cores: {
                    server: cpuAccount.cores.bench,
                    db: cpuAccount.cores.db,
                    client: round(clientCores, 2),
                    others: round(Math.max(0, cpuAccount.cores.others - clientCores), 2),
                  },
                },
              }
            : {}),
          ...(jobsDrainMs === undefined ? {} : { jobsDrainMs }),
          check,
          warmup: { completed: warm.completed, failures: warm.failures.length, wallMs: round(warm.wallMs, 0) },
          targetsMet: {
            envelopesPerSec: envelopesPerSec >= WORKFLOW_TARGETS.envelopesPerSec,
            signP99: steps.sign.p99Ms <= WORKFLOW_TARGETS.signP99Ms,
          },
          ok: problems.length === 0,
        };
      } finally {
        await client.close();
        await app.close();
        await inFlight.drain();
        await runner.stop({ timeoutMs: 30_000 });
      }
    } finally {
      await runtime.close();
    }
  } finally {
    await database.drop();
  }
}

export async function runWorkflow(options: BenchOptions): Promise<WorkflowReport> {
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, options.connections),
    (kind, error): WorkflowRun => ({
      database: kind,
      engine: kind,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      ok: false,
    }),
  );
  return { runs, ok: runs.every((r) => r.ok) };
}

export function printWorkflow(report: WorkflowReport): void {
  for (const run of report.runs) {
    console.log(`\n${run.engine}`);
    if (!run.steps || run.envelopesPerSec === undefined || run.wallMs === undefined) {
      console.log(`  FAILED: ${run.error ?? 'no result'}`);
      continue;
    }
    console.log(
      `  ${run.completed} of ${run.envelopes} envelopes completed in ${fixed(run.wallMs / 1000, 2)} s with ${run.concurrency} workers: ${fixed(run.envelopesPerSec, 1)} envelopes/s`,
    );
    const server = run.serverSteps ?? {};
    const serverRoute: Record<Step, string> = {
      create: `POST ${API_BASE}/envelopes`,
      upload: `POST ${API_BASE}/envelopes/:id/documents`,
      fields: `PUT ${API_BASE}/envelopes/:id/documents/:document_id/fields`,
      send: `POST ${API_BASE}/envelopes/:id/send`,
      session: `POST ${API_BASE}/envelopes/:id/signing-sessions`,
      sign: `POST ${API_BASE}/signing/:token`,
    };
    const rows = STEPS.map((step) => {
      const s = run.steps![step];
      const h = server[serverRoute[step]];
      return [
        step,
        fixed(s.p50Ms, 1),
        fixed(s.p90Ms, 1),
        fixed(s.p99Ms, 1),
        fixed(s.maxMs, 1),
        h ? fixed(h.p50Ms, 1) : '-',
        h ? fixed(h.p99Ms, 1) : '-',
      ];
    });
    console.log(table(['step', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'server p50', 'server p99'], rows));
    if (run.signConcurrency) {
      console.log(
        `  sign acts in flight when one started: mean ${run.signConcurrency.mean}, max ${run.signConcurrency.max}`,
      );
    }
    if (run.eventLoopDelayMs) {
      console.log(
        `  server event-loop delay: p50 ${run.eventLoopDelayMs.p50} ms, p99 ${run.eventLoopDelayMs.p99} ms, max ${run.eventLoopDelayMs.max} ms`,
      );
    }
    if (run.cpu) {
      const c = run.cpu;
      console.log(
        `  CPU per envelope: server thread ${c.serverThreadMsPerEnvelope} ms (process ${c.serverProcessMsPerEnvelope} ms), database ${c.dbMsPerEnvelope} ms, client ${c.clientMsPerEnvelope} ms; cores server/db/client/others ${c.cores.server}/${c.cores.db}/${c.cores.client}/${c.cores.others}`,
      );
    }
    if (run.jobsDrainMs !== undefined) {
      console.log(
        `  job queue empty ${fixed(run.jobsDrainMs)} ms after the last envelope; mail ${JSON.stringify(run.check?.mail)}; jobs ${JSON.stringify(run.check?.jobs)}`,
      );
    }
    if (run.failures && run.failures.length > 0) {
      for (const f of run.failures.slice(0, 5)) {
        console.log(`  failure: envelope ${f.index} at ${f.step}: ${f.status} ${f.detail}`);
      }
    }
    if (run.error) console.log(`  FAILED: ${run.error}`);
    if (run.targetsMet) {
      const binding = run.database === 'sqlite' ? 'target' : 'target (informational on PostgreSQL)';
      console.log(
        `  envelopes/s = ${fixed(run.envelopesPerSec, 1)}  ${binding} >= ${WORKFLOW_TARGETS.envelopesPerSec}: ${run.targetsMet.envelopesPerSec ? 'MET' : 'MISSED'}`,
      );
      console.log(
        `  sign act p99 = ${fixed(run.steps.sign.p99Ms, 1)} ms  ${binding} <= ${WORKFLOW_TARGETS.signP99Ms} ms: ${run.targetsMet.signP99 ? 'MET' : 'MISSED'}`,
      );
    }
  }
}
