/**
 * Office-server benchmark: for each database, a real Mohar app on loopback HTTP, loaded by
 * autocannon on a worker thread. Measures a bare Fastify route (the baseline), the envelope
 * status poll and envelope creation, and checks the ratios against the targets.
 */
import { API_BASE } from '../common/api-paths.js';
import { buildApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { DISTURBED_CORES } from './cpu.js';
import {
  backendPids,
  perDatabase,
  disturbed,
  engineVersion,
  fixed,
  measure,
  table,
  type BenchOptions,
  type DatabaseChoice,
  type LoadResult,
} from './support.js';

/**
 * Minimum throughput as a fraction of the baseline route's. Binding on SQLite; PostgreSQL is reported against the same
 * numbers.
 */
export const TARGETS = { status: 0.5, create: 0.25 } as const;

export const CREATE_BODY = JSON.stringify({ title: 'bench', recipients: [{ name: 'A', email: 'a@example.com' }] });

/** Shaped like a status response with two recipients, so serialization and bytes on the wire are alike. */
const BASELINE = {
  envelope_id: '00000000-0000-4000-8000-000000000000',
  status: 'draft',
  recipients: [1, 2].map((n) => ({
    recipient_id: `00000000-0000-4000-8000-00000000000${n}`,
    name: `Recipient ${n}`,
    email: `recipient${n}@example.com`,
    role: 'signer',
    signature_method: 'electronic',
    sequence: n,
    status: 'created',
  })),
  updated_at: '2025-01-01T00:00:00.000Z',
};

export interface DatabaseRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  bytes?: { baseline: number; status: number };
  results: LoadResult[];
  /** Throughput relative to the baseline route: what the targets are checked against. */
  ratios?: { status: number; create: number };
  /**
   * Baseline CPU per request / route CPU per request (server thread + database): the same ratio, insensitive to other
   * load on the machine.
   */
  cpuRatios?: { status: number; create: number };
  targetsMet?: { status: boolean; create: boolean };
  /** SQLite: writes per group commit while the create route ran (warm-up included). */
  writesPerCommit?: number;
}

export interface ServerApiReport {
  runs: DatabaseRun[];
  /** False when a load run had errors or a database could not be benchmarked. */
  ok: boolean;
}

function cpuRatio(baseline: LoadResult, route: LoadResult): number {
  const cost = (r: LoadResult): number => (r.cpu ? r.cpu.serverUsPerRequest + r.cpu.dbUsPerRequest : Number.NaN);
  return cost(baseline) / cost(route);
}

async function benchDatabase(kind: DatabaseChoice, options: BenchOptions): Promise<DatabaseRun> {
  const database = await createTestDatabase(kind);
  try {
    const config = parseConfig({
      MOHAR_DATA_DIR: database.dataDir,
      MOHAR_DATABASE_URL: database.databaseUrl,
      MOHAR_HOST: '127.0.0.1',
      MOHAR_PORT: '0',
      MOHAR_LOG_LEVEL: 'warn',
      // The per-key burst limit stays on (its cost is part of every API request) but never refuses here.
      MOHAR_RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    const runtime = await openRuntime(config);
    try {
      const account = await createAccount(runtime.ctx, {
        name: 'Bench',
        email: 'bench@example.com',
        password: 'bench-password-0123',
      });
      const { api_key: key } = await generateApiKey(runtime.ctx, account.accountId, 'live');
      const app = await buildApp(runtime.ctx);
      app.get('/bench/baseline', () => BASELINE);
      await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        const address = app.server.address();
        if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
        const base = `http://127.0.0.1:${address.port}`;
        const auth = { 'x-api-key': key };
        const json = { ...auth, 'content-type': 'application/json' };
        const envelopeId = await createStatusEnvelope(base, json);
        const statusUrl = `${base}${API_BASE}/envelopes/${envelopeId}/status`;
        const bytes = {
          baseline: await responseBytes(`${base}/bench/baseline`, {}),
          status: await responseBytes(statusUrl, auth),
        };
        const results: LoadResult[] = [];
        let writesPerCommit: number | undefined;
        for (const target of [
          { name: 'baseline', url: `${base}/bench/baseline` },
          { name: 'status', url: statusUrl, headers: auth },
          {
            name: 'create',
            url: `${base}${API_BASE}/envelopes`,
            method: 'POST' as const,
            headers: json,
            body: CREATE_BODY,
          },
        ]) {
          process.stdout.write(`  ${kind}: ${target.name} (${options.warmup}s warm-up + ${options.duration}s)…\n`);
          const commitsBefore = { ...runtime.ctx.sqlite?.stats };
          results.push(await measure(target, options, () => backendPids(runtime.ctx)));
          const commitsAfter = runtime.ctx.sqlite?.stats;
          if (target.name === 'create' && commitsAfter && commitsBefore.commits !== undefined) {
            writesPerCommit =
              (commitsAfter.writes - commitsBefore.writes!) / (commitsAfter.commits - commitsBefore.commits);
          }
        }
        const [baseline, status, create] = results as [LoadResult, LoadResult, LoadResult];
        const ratios = { status: status.reqPerSec / baseline.reqPerSec, create: create.reqPerSec / baseline.reqPerSec };
        const targetsMet = { status: ratios.status >= TARGETS.status, create: ratios.create >= TARGETS.create };
        const cpuRatios = { status: cpuRatio(baseline, status), create: cpuRatio(baseline, create) };
        return {
          database: kind,
          engine: await engineVersion(runtime.ctx),
          bytes,
          results,
          ratios,
          cpuRatios,
          targetsMet,
          ...(writesPerCommit === undefined ? {} : { writesPerCommit }),
        };
      } finally {
        // autocannon drops its sockets when time is up; Fastify's close() does not wait for handlers
        // still running for those, so give them a moment before the database goes away.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await app.close();
      }
    } finally {
      await runtime.close();
    }
  } finally {
    await database.drop();
  }
}

async function createStatusEnvelope(base: string, headers: Record<string, string>): Promise<string> {
  const body = JSON.stringify({
    title: 'bench status',
    recipients: [
      { name: 'Recipient One', email: 'one@example.com' },
      { name: 'Recipient Two', email: 'two@example.com' },
    ],
  });
  const response = await fetch(`${base}${API_BASE}/envelopes`, { method: 'POST', headers, body });
  if (response.status !== 201) {
    throw new Error(`creating the status envelope answered ${response.status}: ${await response.text()}`);
  }
  return ((await response.json()) as { id: string }).id;
}

async function responseBytes(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.arrayBuffer()).byteLength;
}

export async function runServerApi(options: BenchOptions): Promise<ServerApiReport> {
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, options),
    (kind, error): DatabaseRun => ({
      database: kind,
      engine: kind,
      error: error instanceof Error ? error.message : String(error),
      results: [],
    }),
  );
  return { runs, ok: runs.every((r) => r.error === undefined && r.results.every((x) => !x.failed)) };
}

export function printServerApi(report: ServerApiReport): void {
  for (const run of report.runs) {
    console.log(
      `\n${run.engine}${run.bytes ? ` (response bytes: baseline ${run.bytes.baseline}, status ${run.bytes.status})` : ''}`,
    );
    if (run.error !== undefined) {
      console.log(`  FAILED: ${run.error}`);
      continue;
    }
    const rows = run.results.map((r) => [
      r.name,
      fixed(r.reqPerSec),
      fixed(r.latencyP99Ms),
      fixed(r.requests),
      `${r.non2xx}/${r.errors}/${r.timeouts}`,
      r.cpu ? fixed(r.cpu.serverUsPerRequest, 1) : '-',
      r.cpu ? fixed(r.cpu.dbUsPerRequest, 1) : '-',
      r.cpu ? `${fixed(r.cpu.cores.bench, 2)}/${fixed(r.cpu.cores.db, 2)}/${fixed(r.cpu.cores.others, 2)}` : '-',
      r.failed
        ? `FAILED ${JSON.stringify(r.statusCodes)}${r.warmupFailures ? ` warm-up failures ${r.warmupFailures}` : ''}`
        : `ok${disturbed(r) ? ', DISTURBED' : ''}${r.attempts > 1 ? ` (best of ${r.attempts})` : ''}`,
    ]);
    console.log(
      table(
        [
          'route',
          'req/s',
          'p99 ms',
          'requests',
          'non2xx/err/timeout',
          'server µs/req',
          'db µs/req',
          'cores bench/db/others',
          'run',
        ],
        rows,
      ),
    );
    if (!run.ratios || !run.targetsMet || !run.cpuRatios) continue;
    const binding = run.database === 'sqlite' ? 'target' : 'target (informational on PostgreSQL)';
    for (const name of ['status', 'create'] as const) {
      const verdict = run.targetsMet[name] ? 'met' : 'MISSED';
      console.log(
        `  ${name}/baseline = ${fixed(run.ratios[name], 3)} (by CPU per request ${fixed(run.cpuRatios[name], 3)})  ${binding} >= ${TARGETS[name]}: ${verdict}`,
      );
    }
    if (run.writesPerCommit !== undefined) {
      console.log(`  group commit during create: ${fixed(run.writesPerCommit, 1)} writes per commit`);
    }
  }
  if (report.runs.some((run) => run.results.some(disturbed))) {
    console.log(
      `\nDISTURBED: other processes kept more than ${DISTURBED_CORES} cores busy during a run; its req/s is low. The CPU-per-request columns and ratios hold up better.`,
    );
  }
}
