/**
 * Envelope list benchmark (issue 14): 100,000 envelopes in one account (--rows N), plus 5,000 in another,
 * on a real Mohar app on loopback HTTP. Each case is a sequence of GET /envelopes pages (one request at a
 * time, the query varied over a sample of the seeded envelopes): p50/p95/max of the time to the whole
 * answer. Target: p95 ≤ 50 ms for every search page.
 */
import { sql } from 'kysely';
import { API_BASE, LEGACY_BASE } from '../common/api-paths.js';
import { buildApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { machineBusyCores } from './cpu.js';
import { BULK_IDS, seedEnvelopes, TEMPLATE_IDS, type SeededEnvelope } from './envelope-list-seed.js';
import { engineVersion, fixed, perDatabase, table, type BenchOptions, type DatabaseChoice } from './support.js';

export const LIST_TARGETS = { searchPageP95Ms: 50 } as const;
const REQUESTS = 200;
const WARMUP = 10;

interface Case {
  readonly name: string;
  /** Sent with the account login's token instead of the API key (`mine` is a login's own). */
  readonly asUser?: boolean;
  /** The query string of request n (varied over the sample), without the leading "?". */
  readonly query: (n: number) => string;
}

export interface CaseResult {
  name: string;
  example: string;
  /** Envelopes matching the example query (counted separately, not timed). */
  matches: number | null;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  rowsPerPage: number;
  met: boolean;
}

export interface ListRun {
  database: DatabaseChoice;
  engine: string;
  envelopes: number;
  seedSeconds: number;
  busyCoresBefore: number | undefined;
  error?: string;
  cases: CaseResult[];
}

const first = (e: SeededEnvelope) => e.title.split(' ').at(-3)!.toLowerCase();

function cases(sample: readonly SeededEnvelope[], cursors: { plain: string; many: string }): Case[] {
  const at = (n: number) => sample[(n * 7919) % sample.length]!;
  const withExternal = sample.filter((e) => e.externalId !== null);
  const since = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  return [
    { name: 'first page', query: () => '' },
    { name: 'status=sent', query: () => 'status=sent' },
    { name: 'status=declined,voided', query: () => 'status=declined&status=voided' },
    { name: 'q few: e-mail', query: (n) => `q=${encodeURIComponent(at(n).emails[n % 2]!)}` },
    { name: 'q few: external_id', query: (n) => `q=${withExternal[(n * 31) % withExternal.length]!.externalId}` },
    {
      name: 'q some: full name',
      query: (n) => `q=${encodeURIComponent(at(n).title.split(' ').slice(-3, -1).join(' '))}`,
    },
    { name: 'q many: first name', query: (n) => `q=${first(at(n))}` },
    { name: 'q many: document kind', query: (n) => `q=${encodeURIComponent(at(n).title.split(' ')[0]!)}` },
    { name: 'q many: mail domain', query: () => 'q=example.com' },
    { name: 'q many + status=completed', query: (n) => `q=${first(at(n))}&status=completed` },
    { name: 'q many + last 30 days', query: (n) => `q=${first(at(n))}&created_from=${since}` },
    { name: 'template_id', query: (n) => `template_id=${TEMPLATE_IDS[n % TEMPLATE_IDS.length]}` },
    { name: 'bulk_send_id + q', query: (n) => `bulk_send_id=${BULK_IDS[n % BULK_IDS.length]}&q=${first(at(n))}` },
    { name: 'deep page (after 5,000)', query: () => `cursor=${cursors.plain}` },
    { name: 'q many, deep page (after 1,000)', query: () => `q=asha&cursor=${cursors.many}` },
    { name: 'mine=true (a fifth of all)', query: () => 'mine=true', asUser: true },
    { name: 'mine=true + q many', query: (n) => `mine=true&q=${first(at(n))}`, asUser: true },
  ];
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function walk(base: string, key: string, query: string, pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const page = (await (
      await fetch(`${base}?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`, { headers: { 'x-api-key': key } })
    ).json()) as { next_cursor: string | null };
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }
  return cursor;
}

async function runCase(
  base: string,
  auth: { key: string; token: string },
  c: Case,
): Promise<{ times: number[]; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  const headers: Record<string, string> = c.asUser
    ? { authorization: `Bearer ${auth.token}` }
    : { 'x-api-key': auth.key };
  for (let n = 0; n < WARMUP + REQUESTS; n++) {
    const started = performance.now();
    const response = await fetch(`${base}?${c.query(n)}`, { headers });
    const body = (await response.json()) as { envelopes?: unknown[] };
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`${c.name}: ${response.status} ${JSON.stringify(body)}`);
    if (n >= WARMUP) {
      times.push(ms);
      rows += body.envelopes!.length;
    }
  }
  return { times: times.sort((a, b) => a - b), rows: rows / REQUESTS };
}

async function benchDatabase(kind: DatabaseChoice, count: number): Promise<ListRun> {
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
    try {
      const account = await createAccount(runtime.ctx, {
        name: 'Bench',
        email: 'bench@example.com',
        password: 'bench-password-0123',
      });
      const other = await createAccount(runtime.ctx, {
        name: 'Other',
        email: 'other@example.com',
        password: 'bench-password-0123',
      });
      const { api_key: key } = await generateApiKey(runtime.ctx, account.accountId, 'live');
      const seeding = performance.now();
      // The account's login and two more users created a fifth of the envelopes each (created_by, ?mine=true).
      const creators = [account.userId, ...(await benchUsers(runtime.ctx.db, account.accountId))];
      const sample = await seedEnvelopes(
        runtime.ctx.db,
        account.accountId,
        count,
        (done) => process.stdout.write(`\r  ${kind}: seeded ${done} envelopes`),
        true,
        creators,
      );
      await seedEnvelopes(runtime.ctx.db, other.accountId, Math.ceil(count / 20), () => undefined, false);
      const seedSeconds = (performance.now() - seeding) / 1000;
      process.stdout.write(` (${fixed(seedSeconds, 1)} s)\n`);
      // PostgreSQL's autovacuum would analyze the new rows shortly; do it now rather than wait for it.
      if (kind === 'postgres') await sql`analyze`.execute(runtime.ctx.db);
      const app = await buildApp(runtime.ctx);
      await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        const address = app.server.address();
        if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
        const base = `http://127.0.0.1:${address.port}${API_BASE}/envelopes`;
        const cursors = { plain: await walk(base, key, '', 50), many: await walk(base, key, '&q=asha', 10) };
        const token = await loginToken(base, 'bench@example.com', 'bench-password-0123');
        const busyCoresBefore = await machineBusyCores();
        const results: CaseResult[] = [];
        for (const c of cases(sample, cursors)) {
          const { times, rows } = await runCase(base, { key, token }, c);
          const example = c.query(1);
          const p95 = percentile(times, 95);
          results.push({
            name: c.name,
            example: example.length > 70 ? `${example.slice(0, 67)}...` : example,
            matches: await matchCount(runtime.ctx.db, account.accountId, example),
            p50Ms: percentile(times, 50),
            p95Ms: p95,
            maxMs: times.at(-1)!,
            rowsPerPage: rows,
            met: p95 <= LIST_TARGETS.searchPageP95Ms,
          });
          process.stdout.write(`  ${kind}: ${c.name}: p95 ${fixed(p95, 1)} ms\n`);
        }
        return {
          database: kind,
          engine: await engineVersion(runtime.ctx),
          envelopes: count,
          seedSeconds,
          busyCoresBefore,
          cases: results,
        };
      } finally {
        await app.close();
      }
    } finally {
      await runtime.close();
    }
  } finally {
    await database.drop();
  }
}

async function benchUsers(db: Parameters<typeof seedEnvelopes>[0], accountId: string): Promise<string[]> {
  const users = [1, 2].map((n) => ({
    id: `00000000-0000-7000-8000-00000000000${n}`,
    account_id: accountId,
    email: `sender${n}@example.com`,
    password_hash: '!',
    role: 'sender',
    locked_until: null,
    created_at: new Date().toISOString(),
    last_login_at: null,
  }));
  await db.insertInto('users').values(users).execute();
  return users.map((u) => u.id);
}

/** The console's way in: a login token (POST {legacy_base}/auth/login/). */
async function loginToken(envelopesUrl: string, email: string, password: string): Promise<string> {
  const response = await fetch(envelopesUrl.replace(API_BASE + '/envelopes', `${LEGACY_BASE}/auth/login/`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`bench login: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * How many envelopes the example's q matches (through the API's own list, counted page by page is too slow: a COUNT
 * here).
 */
async function matchCount(
  db: Parameters<typeof seedEnvelopes>[0],
  accountId: string,
  query: string,
): Promise<number | null> {
  const q = new URLSearchParams(query).get('q');
  if (q === null) return null;
  const { searchQuery } = await import('../server/storage/search-terms.js');
  const search = searchQuery(q)!;
  const row = await db
    .selectFrom('envelopes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where(sql<boolean>`search_text like ${search.like} escape '\\'`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function runEnvelopeList(options: BenchOptions): Promise<{ runs: ListRun[]; ok: boolean }> {
  // --rows N (shared with the bulk section's option) makes a smaller run.
  const count = (options as BenchOptions & { rows?: number }).rows ?? 100_000;
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, count),
    (kind, error): ListRun => ({
      database: kind,
      engine: kind,
      envelopes: count,
      seedSeconds: 0,
      busyCoresBefore: undefined,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      cases: [],
    }),
  );
  return { runs, ok: runs.every((r) => r.error === undefined) };
}

export function printEnvelopeList(report: { runs: ListRun[] }): void {
  for (const run of report.runs) {
    console.log(
      `\n${run.engine}: ${fixed(run.envelopes)} envelopes (+5% in another account), seeded in ${fixed(run.seedSeconds, 1)} s; other processes kept ${run.busyCoresBefore ?? '?'} cores busy before the run`,
    );
    if (run.error !== undefined) {
      console.log(`  FAILED: ${run.error}`);
      continue;
    }
    const rows = run.cases.map((c) => [
      c.name,
      c.matches === null ? '-' : fixed(c.matches),
      fixed(c.rowsPerPage, 1),
      fixed(c.p50Ms, 1),
      fixed(c.p95Ms, 1),
      fixed(c.maxMs, 1),
      c.met ? 'met' : 'MISSED',
    ]);
    console.log(
      table(
        ['case', 'q matches', 'rows/page', 'p50 ms', 'p95 ms', 'max ms', `p95 <= ${LIST_TARGETS.searchPageP95Ms} ms`],
        rows,
      ),
    );
  }
}
