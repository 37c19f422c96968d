/**
 * Legacy API benchmark, per database: a real Mohar app on loopback HTTP loaded by autocannon on a worker thread.
 *
 * 1. Legacy creates per second: POST /document/recipients/create/ (headless, one E-Signature signer) whose
 *    doc_url points at a local HTTP server handing out a 1-page PDF (MOHAR_FETCH_ALLOW_PRIVATE=1). Each create
 *    fetches the PDF, inspects it in a worker, stores it, creates, attaches, places the field and sends.
 * 2. The rate limiter's cost on GET /document/app/sign/status/{id}/: two apps over the same runtime and database,
 *    one with the limiter on (a limit that never refuses) and one with it off (MOHAR_RATE_LIMIT_PER_MINUTE=0),
 *    measured in alternating short slices (on, off, off, on, …) in one run; target: throughput with it >= 0.9x without.
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { LEGACY_BASE } from '../common/api-paths.js';
import { buildApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import type { App } from '../server/http/app-type.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
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

export const LEGACY_TARGETS = { limiterRatio: 0.9 } as const;
/**
 * Measured slices per variant of the status route, alternating in ABBA order, each a quarter of --duration (at
 * least 2 s) after a 1 s warm-up: on a shared machine the load drifts within seconds, and many short alternating
 * slices let the drift weigh on both variants alike.
 */
const ROUNDS = 8;

export interface LegacyRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  results: LoadResult[];
  createsPerSecond?: number;
  status?: { withLimiter: number; withoutLimiter: number; ratio: number; cpuRatio: number };
  targetMet?: boolean;
}

export interface LegacyReport {
  runs: LegacyRun[];
  ok: boolean;
}

async function listen(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
  return `http://127.0.0.1:${address.port}${LEGACY_BASE}`;
}

async function pdfServer(pdf: Buffer): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length }).end(pdf),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/contract.pdf`, server };
}

function cpuPerRequest(r: LoadResult): number {
  return r.cpu ? r.cpu.serverUsPerRequest + r.cpu.dbUsPerRequest : Number.NaN;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

async function benchDatabase(kind: DatabaseChoice, options: BenchOptions): Promise<LegacyRun> {
  const database = await createTestDatabase(kind);
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    const config = parseConfig({
      MOHAR_DATA_DIR: database.dataDir,
      MOHAR_DATABASE_URL: database.databaseUrl,
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_FETCH_ALLOW_PRIVATE: '1',
      // On and counting, but never refusing: the limiter's cost is what is measured.
      MOHAR_RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    const runtime = await openRuntime(config);
    const files = await pdfServer(makePdf({ pages: 1 }));
    const apps: App[] = [];
    try {
      const account = await createAccount(runtime.ctx, {
        name: 'Bench',
        email: 'bench@example.com',
        password: 'bench-password-0123',
      });
      const { api_key: key } = await generateApiKey(runtime.ctx, account.accountId, 'live');
      const limited = await buildApp(runtime.ctx, { logStream: quiet });
      const open = await buildApp(
        { ...runtime.ctx, config: { ...config, rateLimitPerMinute: 0 } },
        { logStream: quiet },
      );
      apps.push(limited, open);
      const [limitedBase, openBase] = [await listen(limited), await listen(open)];
      const body = JSON.stringify({
        companyDetails: { api_key: key, is_mail_required: false },
        documentDetails: { doc_url: files.url },
        recipientDetail: [
          {
            name: 'Asha Rao',
            email: 'asha@example.com',
            typeOfSignature: 'E-Signature',
            sequence: 1,
            page_no: 1,
            x_cor: 72,
            y_cor: 600,
          },
        ],
      });
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const first = await fetch(`${limitedBase}/document/recipients/create/`, { method: 'POST', headers, body });
      if (first.status !== 200) {
        throw new Error(`the first legacy create answered ${first.status}: ${await first.text()}`);
      }
      const { document_id: documentId } = (await first.json()) as { document_id: number };
      const statusPath = `/document/app/sign/status/${documentId}/`;
      const check = await fetch(`${openBase}${statusPath}`, { headers: { 'x-api-key': key } });
      if (check.status !== 200 || check.headers.has('x-ratelimit-limit')) {
        throw new Error('the app without limiter should answer without X-RateLimit headers');
      }

      const dbPids = () => backendPids(runtime.ctx);
      const results: LoadResult[] = [];
      const on: LoadResult[] = [];
      const off: LoadResult[] = [];
      const variants = [
        ['status, limiter on', limitedBase, on],
        ['status, limiter off', openBase, off],
      ] as const;
      const slice = {
        ...options,
        duration: Math.max(2, Math.ceil(options.duration / 4)),
        warmup: Math.min(1, options.warmup),
        retries: 0,
      };
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [name, base, list] of round % 2 === 1 ? variants : [...variants].reverse()) {
          process.stdout.write(`  ${kind}: ${name}, slice ${round} (${slice.warmup}s warm-up + ${slice.duration}s)…\n`);
          const result = await measure(
            { name: `${name} #${round}`, url: `${base}${statusPath}`, headers: { 'x-api-key': key } },
            slice,
            dbPids,
          );
          list.push(result);
          results.push(result);
        }
      }
      // Creates last: their writes (and SQLite's growing WAL) must not weigh on the status comparison.
      process.stdout.write(`  ${kind}: legacy create (${options.warmup}s warm-up + ${options.duration}s)…\n`);
      const create = await measure(
        { name: 'create (doc_url)', url: `${limitedBase}/document/recipients/create/`, method: 'POST', headers, body },
        options,
        dbPids,
      );
      results.push(create);
      const withLimiter = mean(on.map((r) => r.reqPerSec));
      const withoutLimiter = mean(off.map((r) => r.reqPerSec));
      const ratio = withLimiter / withoutLimiter;
      const cpuRatio = mean(off.map(cpuPerRequest)) / mean(on.map(cpuPerRequest));
      return {
        database: kind,
        engine: await engineVersion(runtime.ctx),
        results,
        createsPerSecond: create.reqPerSec,
        status: { withLimiter, withoutLimiter, ratio, cpuRatio },
        targetMet: ratio >= LEGACY_TARGETS.limiterRatio,
      };
    } finally {
      // Let handlers of connections autocannon dropped finish before the database goes away.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const app of apps) await app.close();
      await new Promise<void>((resolve) => files.server.close(() => resolve()));
      await runtime.close();
    }
  } finally {
    await database.drop();
  }
}

export async function runLegacy(options: BenchOptions): Promise<LegacyReport> {
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, options),
    (kind, error): LegacyRun => ({
      database: kind,
      engine: kind,
      error: error instanceof Error ? error.message : String(error),
      results: [],
    }),
  );
  return { runs, ok: runs.every((r) => r.error === undefined && r.results.every((x) => !x.failed)) };
}

export function printLegacy(report: LegacyReport): void {
  for (const run of report.runs) {
    console.log(`\n${run.engine}`);
    if (run.error !== undefined) {
      console.log(`  FAILED: ${run.error}`);
      continue;
    }
    const rows = run.results.map((r) => [
      r.name,
      fixed(r.reqPerSec, 1),
      fixed(r.latencyP99Ms),
      fixed(r.requests),
      `${r.non2xx}/${r.errors}/${r.timeouts}`,
      r.cpu ? fixed(cpuPerRequest(r), 1) : '-',
      r.cpu ? `${fixed(r.cpu.cores.bench, 2)}/${fixed(r.cpu.cores.db, 2)}/${fixed(r.cpu.cores.others, 2)}` : '-',
      r.failed
        ? `FAILED ${JSON.stringify(r.statusCodes)}`
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
          'µs/req (server+db)',
          'cores bench/db/others',
          'run',
        ],
        rows,
      ),
    );
    if (!run.status) continue;
    console.log(`  legacy creates: ${fixed(run.createsPerSecond ?? 0, 1)}/s`);
    console.log(
      `  status with limiter / without = ${fixed(run.status.withLimiter)} / ${fixed(run.status.withoutLimiter)} req/s = ${fixed(run.status.ratio, 3)} (by CPU per request ${fixed(run.status.cpuRatio, 3)})  target >= ${LEGACY_TARGETS.limiterRatio}: ${run.targetMet ? 'met' : 'MISSED'}`,
    );
  }
}
