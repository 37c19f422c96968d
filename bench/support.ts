/**
 * Shared benchmark helpers: command-line options, machine facts, one autocannon load run, tables
 * and the results file. Sections (bench/server-api.ts, later PDF signing, webhooks) build on these.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { Context } from '../server/domain/context.js';
import { DISTURBED_CORES, startCpuAccount, waitForQuiet, type CpuAccount } from './cpu.js';

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'results');

export type DatabaseChoice = 'sqlite' | 'postgres';

export interface BenchOptions {
  /** Section names to run; empty = all. */
  readonly sections: readonly string[];
  readonly only: DatabaseChoice | undefined;
  /** Seconds per measured run. */
  readonly duration: number;
  /** Seconds of warm-up load before each measured run. */
  readonly warmup: number;
  readonly connections: number;
  /** How often a run disturbed by other processes is repeated (after waiting for quiet). */
  readonly retries: number;
  /** Rows of the bulk send section's batch (--rows; default there 10,000). */
  readonly rows?: number;
}

/** The databases a run covers: the one named by --only, else both. */
export function databasesOf(options: Pick<BenchOptions, 'only'>): DatabaseChoice[] {
  return options.only ? [options.only] : ['sqlite', 'postgres'];
}

/**
 * One benchmark per database, in turn. A database whose run throws is reported through `failed` (its message)
 * and the others still run, so one broken database never hides the other's figures.
 */
export async function perDatabase<R>(
  options: Pick<BenchOptions, 'only'>,
  bench: (kind: DatabaseChoice) => Promise<R>,
  failed: (kind: DatabaseChoice, error: unknown) => R,
): Promise<R[]> {
  const runs: R[] = [];
  for (const kind of databasesOf(options)) {
    try {
      runs.push(await bench(kind));
    } catch (error) {
      runs.push(failed(kind, error));
    }
  }
  return runs;
}

export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      only: { type: 'string' },
      duration: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      retries: { type: 'string', default: '2' },
      rows: { type: 'string' },
    },
  });
  if (values.only !== undefined && values.only !== 'sqlite' && values.only !== 'postgres') {
    throw new Error(`--only must be sqlite or postgres (got "${values.only}")`);
  }
  return {
    sections: positionals,
    only: values.only,
    duration: wholeNumber('--duration', values.duration, 1),
    warmup: wholeNumber('--warmup', values.warmup, 0),
    connections: wholeNumber('--connections', values.connections, 1),
    retries: wholeNumber('--retries', values.retries, 0),
    ...(values.rows === undefined ? {} : { rows: wholeNumber('--rows', values.rows, 1) }),
  };
}

function wholeNumber(name: string, raw: string, min: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name} must be a whole number >= ${min} (got "${raw}")`);
  }
  return Number(raw);
}

export interface MachineInfo {
  cores: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machineInfo(): MachineInfo {
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

export interface LoadTarget {
  readonly name: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * autocannon replaces `[<id>]` in the request (headers and body) with a fresh id per request, e.g. an
   * Idempotency-Key.
   */
  readonly idReplacement?: boolean;
}

export interface LoadResult {
  name: string;
  reqPerSec: number;
  latencyAvgMs: number;
  latencyP50Ms: number;
  /** autocannon records latency in whole milliseconds. */
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  warmupFailures: number;
  /** CPU accounting of the measured run (Linux); undefined elsewhere. */
  cpu: CpuAccount | undefined;
  /** Measured runs made: more than one when other processes disturbed the earlier ones. */
  attempts: number;
  /** True when any request (warm-up included) failed or answered other than 2xx. */
  failed: boolean;
}

export function disturbed(result: LoadResult): boolean {
  return (result.cpu?.cores.others ?? 0) > DISTURBED_CORES;
}

async function cannon(target: LoadTarget, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body === undefined ? {} : { body: target.body }),
    ...(target.idReplacement ? { idReplacement: true } : {}),
    connections,
    duration,
    // The load generator runs on a worker thread so it does not share the server's event loop.
    workers: 1,
  });
}

type MeasureOptions = Pick<BenchOptions, 'connections' | 'duration' | 'warmup' | 'retries'>;

async function measureOnce(
  target: LoadTarget,
  options: MeasureOptions,
  dbPids: () => Promise<readonly number[]>,
): Promise<LoadResult> {
  let warmupFailures = 0;
  if (options.warmup > 0) {
    const warm = await cannon(target, options.connections, options.warmup);
    warmupFailures = warm.non2xx + warm.errors + warm.timeouts;
  }
  const cpu = startCpuAccount(await dbPids());
  const r = await cannon(target, options.connections, options.duration);
  return {
    name: target.name,
    reqPerSec: r.requests.average,
    latencyAvgMs: r.latency.average,
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0])),
    warmupFailures,
    cpu: cpu(r.requests.total),
    attempts: 1,
    failed: r.non2xx + r.errors + r.timeouts + warmupFailures > 0 || r.requests.total === 0,
  };
}

/**
 * A short warm-up, then the measured run. `dbPids` (called after the warm-up, when the pool is
 * open) names database server processes whose CPU time counts as the server's. A run that other
 * processes disturbed is repeated after waiting for quiet, keeping the least disturbed; a run
 * with errors is returned at once.
 */
export async function measure(
  target: LoadTarget,
  options: MeasureOptions,
  dbPids: () => Promise<readonly number[]> = async () => [],
): Promise<LoadResult> {
  let best = await measureOnce(target, options, dbPids);
  for (let attempt = 2; attempt <= options.retries + 1 && !best.failed && disturbed(best); attempt++) {
    process.stdout.write(
      `    disturbed (other processes took ${best.cpu?.cores.others} cores); waiting for quiet and repeating…\n`,
    );
    await waitForQuiet(60);
    const next = await measureOnce(target, options, dbPids);
    const others = (r: LoadResult): number => r.cpu?.cores.others ?? 0;
    best = next.failed || others(next) < others(best) ? { ...next, attempts: attempt } : { ...best, attempts: attempt };
  }
  return best;
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The middle value; for an even count, the mean of the two middle values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function fixed(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Writes bench/results/<section>-<UTC date and time>.json (bench/results is git-ignored). */
export async function writeResults(section: string, data: unknown): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
  const file = join(RESULTS_DIR, `${section}-${stamp}.json`);
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** PostgreSQL backends serving this database: their CPU is part of the server's cost. */
export async function backendPids(ctx: Context): Promise<number[]> {
  if (ctx.dialect !== 'postgres') return [];
  const r = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(
    ctx.db,
  );
  return r.rows.map((row) => row.pid);
}

export async function engineVersion(ctx: Context): Promise<string> {
  if (ctx.dialect === 'postgres') {
    const r = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(ctx.db);
    return `PostgreSQL ${r.rows[0]?.v ?? '?'}`;
  }
  const r = await sql<{ v: string }>`select sqlite_version() as v`.execute(ctx.db);
  return `SQLite ${r.rows[0]?.v ?? '?'}`;
}
