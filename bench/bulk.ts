/**
 * Bulk send benchmark (`npm run bench -- bulk [--rows N]`): one POST /bulk-sends of N rows (default
 * 10,000) of a 2-recipient, 1-page source with three merge fields, on SQLite and PostgreSQL.
 *
 * For each database: a throwaway database and the server as an operator runs it, `mohar serve` in its own
 * process (through tsx, as the tests start it), so its peak RSS (VmHWM) and its CPU are its own; the job
 * runner runs as in production (the invitation mails alongside; no SMTP: they are kept). Measured: the
 * time from the 202 to the batch's `completed` (polled every 250 ms) and envelopes created and sent per
 * second; meanwhile a child process GETs /envelopes/{id}/status 20 times a second (its p99 is the latency
 * target). Afterwards, in the database: every row has exactly one envelope, all sent.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { API_BASE } from '../common/api-paths.js';
import { connectStorage } from '../server/storage/connect.js';
import { createTestDatabase, type TestDatabase } from '../test/support/databases.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
import { fixed, perDatabase, type BenchOptions, type DatabaseChoice } from './support.js';
import { latencyStats, type LatencyStats } from './workflow.js';

/** The issue's targets (the time on SQLite; PostgreSQL reported against the same numbers). */
export const BULK_TARGETS = { seconds: 120, envelopesPerSec: 83, statusP99Ms: 50, peakRssMb: 300 } as const;
const STATUS_INTERVAL_MS = 50;
const ADMIN = { MOHAR_ADMIN_EMAIL: 'admin@bench.test', MOHAR_ADMIN_PASSWORD: 'bench admin password' };

export interface BulkRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  rows?: number;
  /** POST /bulk-sends: request to 202 (validation and the batch's rows written). */
  acceptMs?: number;
  /** From the 202 to the poll that saw the batch completed. */
  seconds?: number;
  envelopesPerSec?: number;
  status?: LatencyStats & { errors: number };
  rssMb?: { before: number; peak: number };
  /** The server process (all its threads); others = the rest of the machine (PostgreSQL included). */
  cpu?: { serverProcessMsPerRow: number; cores: { server: number; others: number } };
  check?: { envelopes: Record<string, number>; rowsWithOneEnvelope: number; counts: Record<string, number> };
  targetsMet?: { seconds: boolean; envelopesPerSec: boolean; statusP99: boolean; peakRss: boolean };
  ok: boolean;
}

export interface BulkReport {
  runs: BulkRun[];
  ok: boolean;
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

async function http<T>(url: string, init: RequestInit, expected: number): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 500)}`);
  }
  return JSON.parse(text) as T;
}

/**
 * Two signers on one page; merge fields Customer (Text) and Amount (Number) for the first, Start (Date) for the second.
 */
async function createSource(api: string, key: string): Promise<string> {
  const json = { 'x-api-key': key, 'content-type': 'application/json' };
  const envelope = await http<{ id: string; recipients: { recipient_id: string }[] }>(
    `${api}/envelopes`,
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        title: 'Renewal',
        message: 'Please sign',
        recipients: [
          { name: 'Customer', email: 'customer@example.com' },
          { name: 'Witness', email: 'witness@example.com' },
        ],
      }),
    },
    201,
  );
  const form = new FormData();
  form.append(
    'file',
    new Blob([makePdf({ pages: [{ text: 'Mohar bulk send benchmark: one page, two signers.' }] })], {
      type: 'application/pdf',
    }),
    'renewal.pdf',
  );
  const document = await http<{ document_id: string }>(
    `${api}/envelopes/${envelope.id}/documents`,
    { method: 'POST', headers: { 'x-api-key': key }, body: form },
    201,
  );
  const [one, two] = envelope.recipients.map((r) => r.recipient_id);
  const fields = [
    { recipient_id: one, field_type: 1, page_number: 1, x: 40, y: 500, width: 180, height: 50 },
    { recipient_id: two, field_type: 1, page_number: 1, x: 300, y: 500, width: 180, height: 50 },
    { recipient_id: one, field_type: 8, page_number: 1, x: 40, y: 100, width: 200, height: 20, label: 'Customer' },
    { recipient_id: one, field_type: 10, page_number: 1, x: 40, y: 140, width: 100, height: 20, label: 'Amount' },
    { recipient_id: two, field_type: 11, page_number: 1, x: 300, y: 140, width: 100, height: 20, label: 'Start' },
  ];
  await http(
    `${api}/envelopes/${envelope.id}/documents/${document.document_id}/fields`,
    { method: 'PUT', headers: json, body: JSON.stringify({ fields }) },
    200,
  );
  return envelope.id;
}

function rowsOf(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    external_id: `bench-${i}`,
    recipients: [
      { name: `Customer ${i}`, email: `c${i}@example.com` },
      { name: `Witness ${i}`, email: `w${i}@example.com` },
    ],
    field_values: { Customer: `Customer number ${i}`, Amount: 1000 + i, Start: '2027-01-15' },
  }));
}

interface StatusClient {
  start(url: string, key: string): void;
  stop(): Promise<{ latencies: number[]; errors: number }>;
}

async function startStatusClient(): Promise<StatusClient> {
  const child = fork(fileURLToPath(new URL('./bulk-status-client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the status client exited (code ${code})`)));
  });
  let stopped: Promise<{ latencies: number[]; errors: number }> | undefined;
  return {
    start: (url, key) => child.send({ type: 'start', url, key, intervalMs: STATUS_INTERVAL_MS }),
    stop: () =>
      (stopped ??= new Promise((resolve) => {
        child.once('message', (m) => resolve(m as { latencies: number[]; errors: number }));
        child.once('exit', () => resolve({ latencies: [], errors: 0 }));
        child.send({ type: 'stop' });
      })),
  };
}

/** utime + stime of a process, in ms (Linux /proc); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process now (VmRSS), in MB. */
function rssMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** What `npm start` passes to node (package.json "start"): a smaller young generation keeps a fan-out's RSS flat. */
const START_NODE_FLAGS = ['--max-semi-space-size=4'];

/**
 * `mohar serve` in its own process: from the sources through tsx (as the tests run it), or a build when
 * MOHAR_BENCH_SERVE names its cli/main.js (as an installation runs it: no tsx loader thread or compiler);
 * MOHAR_BENCH_NODE_OPTIONS becomes the server's NODE_OPTIONS (e.g. heap flags).
 */
function serve(database: TestDatabase, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const build = process.env.MOHAR_BENCH_SERVE;
  // The V8 flags `npm start` runs the server with (package.json), unless MOHAR_BENCH_NODE_OPTIONS says otherwise.
  const flags = process.env.MOHAR_BENCH_NODE_OPTIONS === undefined ? START_NODE_FLAGS : [];
  const args = build ? [...flags, build, 'serve'] : [...flags, '--import', 'tsx', 'cli/main.ts', 'serve'];
  const child = spawn(process.execPath, args, {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MOHAR_PORT: '0',
      MOHAR_DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { MOHAR_DATABASE_URL: database.databaseUrl } : {}),
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_RATE_LIMIT_PER_MINUTE: '1000000000',
      ...(process.env.MOHAR_BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.MOHAR_BENCH_NODE_OPTIONS } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Mohar office server on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({ child, url });
      }
    });
    child.once('exit', (code) => reject(new Error(`mohar serve exited ${code}: ${output}`)));
  });
}

async function apiKeyOf(url: string): Promise<string> {
  const json = { 'content-type': 'application/json' };
  const login = await http<{ access_token: string }>(
    `${url}/backend/othercompanyapi/auth/login/`,
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: ADMIN.MOHAR_ADMIN_EMAIL, password: ADMIN.MOHAR_ADMIN_PASSWORD }),
    },
    200,
  );
  return (
    await http<{ api_key: string }>(
      `${url}/backend/othercompanyapi/apikey/generate/`,
      { method: 'POST', headers: { authorization: `Bearer ${login.access_token}` } },
      201,
    )
  ).api_key;
}

async function check(database: TestDatabase, batchId: string): Promise<NonNullable<BulkRun['check']>> {
  const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  try {
    const { db } = storage;
    const envelopes = await sql<{
      status: string;
      n: number | string;
    }>`select status, count(*) as n from envelopes where bulk_send_id = ${batchId} group by status`.execute(db);
    const once = await sql<{
      n: number | string;
    }>`select count(*) as n from (select row_index from envelopes where bulk_send_id = ${batchId} group by row_index having count(*) = 1) x`.execute(
      db,
    );
    const rows = await sql<{
      status: string;
      n: number | string;
    }>`select status, count(*) as n from bulk_send_rows where bulk_send_id = ${batchId} group by status`.execute(db);
    return {
      envelopes: Object.fromEntries(envelopes.rows.map((r) => [r.status, Number(r.n)])),
      rowsWithOneEnvelope: Number(once.rows[0]?.n ?? 0),
      counts: Object.fromEntries(rows.rows.map((r) => [r.status, Number(r.n)])),
    };
  } finally {
    await storage.close();
  }
}

async function benchDatabase(kind: DatabaseChoice, rows: number): Promise<BulkRun> {
  const database = await createTestDatabase(kind);
  let server: ChildProcess | undefined;
  try {
    const started = await serve(database, { ...ADMIN, MOHAR_BULK_MAX_ROWS: String(Math.max(10_000, rows)) });
    server = started.child;
    const pid = server.pid!;
    const key = await apiKeyOf(started.url);
    const api = `${started.url}${API_BASE}`;
    const client = await startStatusClient();
    try {
      const sourceId = await createSource(api, key);
      const body = JSON.stringify({ source_envelope_id: sourceId, rows: rowsOf(rows) });
      process.stdout.write(`  ${kind}: ${rows} rows (${fixed(body.length / 1024 / 1024, 1)} MiB body)…\n`);
      const rssBefore = peakRssMb(pid);
      client.start(`${api}/envelopes/${sourceId}/status`, key);
      const machineBefore = machineTicks();
      const cpuBefore = cpuMs(pid);
      const posted = performance.now();
      const accepted = await http<{ bulk_send_id: string }>(
        `${api}/bulk-sends`,
        {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': `bench-${kind}` },
          body,
        },
        202,
      );
      const from = performance.now();
      let batch: { status: string; counts: Record<string, number> };
      let shown = from;
      for (;;) {
        batch = await http(`${api}/bulk-sends/${accepted.bulk_send_id}`, { headers: { 'x-api-key': key } }, 200);
        if (!['queued', 'running'].includes(batch.status)) break;
        if (performance.now() - shown > 10_000) {
          shown = performance.now();
          process.stdout.write(
            `    ${fixed((shown - from) / 1000)} s: ${batch.counts.sent} sent, server RSS ${rssMb(pid) ?? '?'} MB\n`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const seconds = (performance.now() - from) / 1000;
      const cpuAfter = cpuMs(pid);
      const machine = busyCores(machineBefore);
      const status = await client.stop();
      const peak = peakRssMb(pid);
      const result = await check(database, accepted.bulk_send_id);
      const problems: string[] = [];
      if (batch.status !== 'completed') {
        problems.push(`the batch ended ${batch.status}: ${JSON.stringify(batch.counts)}`);
      }
      if (result.rowsWithOneEnvelope !== rows || (result.envelopes.sent ?? 0) !== rows) {
        problems.push(
          `${result.rowsWithOneEnvelope} rows with exactly one envelope, ${result.envelopes.sent ?? 0} sent, of ${rows}`,
        );
      }
      if (status.errors > 0) problems.push(`${status.errors} status requests failed`);
      const stats = { ...latencyStats(status.latencies), errors: status.errors };
      const envelopesPerSec = round(rows / seconds, 1);
      const serverCores =
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : (cpuAfter - cpuBefore) / 1000 / (seconds + (from - posted) / 1000);
      return {
        database: kind,
        engine: `${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, server ${process.env.MOHAR_BENCH_SERVE ? `built (${process.env.MOHAR_BENCH_SERVE})` : 'from the sources through tsx'}`,
        ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
        rows,
        acceptMs: round(from - posted, 0),
        seconds: round(seconds, 1),
        envelopesPerSec,
        status: stats,
        rssMb: { before: rssBefore ?? Number.NaN, peak: peak ?? Number.NaN },
        ...(cpuBefore !== undefined && cpuAfter !== undefined && serverCores !== undefined && machine !== undefined
          ? {
              cpu: {
                serverProcessMsPerRow: round((cpuAfter - cpuBefore) / rows, 2),
                cores: { server: round(serverCores, 2), others: round(Math.max(0, machine - serverCores), 2) },
              },
            }
          : {}),
        check: result,
        targetsMet: {
          seconds: seconds <= BULK_TARGETS.seconds * (rows / 10_000),
          envelopesPerSec: envelopesPerSec >= BULK_TARGETS.envelopesPerSec,
          statusP99: stats.p99Ms <= BULK_TARGETS.statusP99Ms,
          peakRss: (peak ?? Infinity) <= BULK_TARGETS.peakRssMb,
        },
        ok: problems.length === 0,
      };
    } finally {
      await client.stop();
    }
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await database.drop();
  }
}

/** Busy and total ticks of all CPUs (/proc/stat). */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

function busyCores(before: { busy: number; total: number } | undefined): number | undefined {
  const after = machineTicks();
  if (!before || !after) return undefined;
  return ((after.busy - before.busy) / (after.total - before.total)) * availableParallelism();
}

export async function runBulk(options: BenchOptions): Promise<BulkReport> {
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, options.rows ?? 10_000),
    (kind, error): BulkRun => ({
      database: kind,
      engine: kind,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      ok: false,
    }),
  );
  return { runs, ok: runs.every((r) => r.ok) };
}

export function printBulk(report: BulkReport): void {
  for (const run of report.runs) {
    console.log(`\n${run.engine}`);
    if (run.seconds === undefined || !run.status || !run.targetsMet) {
      console.log(`  FAILED: ${run.error ?? 'no result'}`);
      continue;
    }
    const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
    console.log(
      `  ${run.rows} rows accepted in ${fixed(run.acceptMs ?? 0)} ms; 202 → completed in ${fixed(run.seconds, 1)} s: ${fixed(run.envelopesPerSec ?? 0, 1)} envelopes/s created and sent`,
    );
    console.log(
      `  GET /envelopes/{id}/status during the fan-out (${run.status.count} requests): p50 ${run.status.p50Ms} ms, p99 ${run.status.p99Ms} ms, max ${run.status.maxMs} ms`,
    );
    console.log(
      `  server RSS: peak ${run.rssMb?.before} MB before the batch, ${run.rssMb?.peak} MB at the end (VmHWM)`,
    );
    if (run.cpu) {
      console.log(
        `  CPU per row: server process ${run.cpu.serverProcessMsPerRow} ms; cores busy: server ${run.cpu.cores.server}, everything else ${run.cpu.cores.others} (the database, the status client and other people's work)`,
      );
    }
    console.log(
      `  rows: ${JSON.stringify(run.check?.counts)}; envelopes: ${JSON.stringify(run.check?.envelopes)}; rows with exactly one envelope: ${run.check?.rowsWithOneEnvelope}`,
    );
    if (run.error) console.log(`  FAILED: ${run.error}`);
    const binding = run.database === 'sqlite' ? 'target' : 'target (informational on PostgreSQL)';
    console.log(
      `  time = ${fixed(run.seconds, 1)} s  ${binding} <= ${fixed(BULK_TARGETS.seconds * ((run.rows ?? 10_000) / 10_000), 1)} s: ${verdict(run.targetsMet.seconds)}`,
    );
    console.log(
      `  status p99 = ${run.status.p99Ms} ms  ${binding} <= ${BULK_TARGETS.statusP99Ms} ms: ${verdict(run.targetsMet.statusP99)}`,
    );
    console.log(
      `  peak RSS = ${run.rssMb?.peak} MB  ${binding} <= ${BULK_TARGETS.peakRssMb} MB: ${verdict(run.targetsMet.peakRss)}`,
    );
  }
}
