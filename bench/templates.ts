/**
 * Template benchmark: for each database, a real Mohar app on loopback HTTP. Measures envelope creation
 * (POST /envelopes, one recipient) and instantiation of a 3-role, 20-field template
 * (POST /templates/{id}/instantiate, a fresh Idempotency-Key per request) in the same run, and checks
 * instantiate ≥ 0.5 × create by requests per second (the CPU per request is printed too).
 *
 * The two are measured in ROUNDS rounds of alternating slices (create, then instantiate), and the result is the
 * median round's ratio: this machine's speed drifts by tens of percent within a minute (a fixed CPU loop timed
 * twelve times in a row took 500 to 1,065 ms), so one long run of each, one after the other, compares two
 * machines as often as two routes. Neighbouring slices meet the same machine.
 */
import { API_BASE } from '../common/api-paths.js';
import { buildApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
import { CREATE_BODY } from './server-api.js';
import {
  backendPids,
  perDatabase,
  disturbed,
  engineVersion,
  fixed,
  measure,
  median,
  table,
  type BenchOptions,
  type DatabaseChoice,
  type LoadResult,
} from './support.js';

export const TEMPLATE_TARGETS = { instantiateVsCreate: 0.5 } as const;

/** Rounds of (create, instantiate) slices; each slice lasts half of --duration, at least 2 s. */
export const ROUNDS = 5;

const ROLES = [
  { role_key: 'seller', label: 'Seller' },
  { role_key: 'buyer', label: 'Buyer' },
  { role_key: 'witness', label: 'Witness', role: 'approver' },
];

/**
 * 20 fields: a Signature per signer, then Text, Date, Number, Checkbox fields spread over two pages and the three
 * roles.
 */
export function benchFields(): Record<string, unknown>[] {
  const fields: Record<string, unknown>[] = [
    { role_key: 'seller', field_type: 1, page_number: 2, x: 72, y: 600, width: 180, height: 50 },
    { role_key: 'buyer', field_type: 1, page_number: 2, x: 300, y: 600, width: 180, height: 50 },
  ];
  const types = [8, 11, 10, 9, 4, 3];
  for (let i = 0; fields.length < 20; i++) {
    const type = types[i % types.length]!;
    fields.push({
      ...(type === 8 ? { field_key: `text_${i}` } : {}),
      role_key: ROLES[i % 3]!.role_key === 'witness' && [4, 3].includes(type) ? 'seller' : ROLES[i % 3]!.role_key,
      field_type: type,
      page_number: 1 + (i % 2),
      x: 40 + (i % 4) * 130,
      y: 60 + Math.floor(i / 4) * 40,
      width: 120,
      height: 20,
      label: `Field ${i}`,
    });
  }
  return fields;
}

export const INSTANTIATE_BODY = JSON.stringify({
  title: 'bench instantiate',
  recipients: {
    seller: { name: 'Asha Rao', email: 'asha@example.com' },
    buyer: { name: 'Vikram Shah', email: 'vikram@example.com' },
    witness: { name: 'Kiran', email: 'kiran@example.com' },
  },
  field_values: { text_0: 'filled' },
});

export interface TemplateRun {
  database: DatabaseChoice;
  engine: string;
  error?: string;
  /** Every slice, in the order run: create 1, instantiate 1, create 2, … */
  results: LoadResult[];
  /** Each round's instantiate/create by requests per second. */
  roundRatios?: number[];
  /** The median round's. */
  ratio?: number;
  /** The median round's by CPU per request. */
  cpuRatio?: number;
  targetMet?: boolean;
}

export interface TemplateReport {
  runs: TemplateRun[];
  ok: boolean;
}

async function createBenchTemplate(base: string, key: string): Promise<string> {
  const form = new FormData();
  form.append(
    'template',
    JSON.stringify({ name: 'Bench sale', roles: ROLES, documents: [{ file: 'contract', fields: benchFields() }] }),
  );
  form.append('contract', new Blob([makePdf({ pages: 2 })], { type: 'application/pdf' }), 'sale.pdf');
  const response = await fetch(`${base}${API_BASE}/templates`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  if (response.status !== 201) {
    throw new Error(`creating the bench template answered ${response.status}: ${await response.text()}`);
  }
  return ((await response.json()) as { template_id: string }).template_id;
}

function cost(r: LoadResult): number {
  return r.cpu ? r.cpu.serverUsPerRequest + r.cpu.dbUsPerRequest : Number.NaN;
}

async function benchDatabase(kind: DatabaseChoice, options: BenchOptions): Promise<TemplateRun> {
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
      const { api_key: key } = await generateApiKey(runtime.ctx, account.accountId, 'live');
      const app = await buildApp(runtime.ctx);
      await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        const address = app.server.address();
        if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
        const base = `http://127.0.0.1:${address.port}`;
        const json = { 'x-api-key': key, 'content-type': 'application/json' };
        const templateId = await createBenchTemplate(base, key);
        const create = {
          name: 'create',
          url: `${base}${API_BASE}/envelopes`,
          method: 'POST' as const,
          headers: json,
          body: CREATE_BODY,
        };
        const instantiate = {
          name: 'instantiate',
          url: `${base}${API_BASE}/templates/${templateId}/instantiate`,
          method: 'POST' as const,
          headers: { ...json, 'idempotency-key': 'bench-[<id>]' },
          body: INSTANTIATE_BODY,
          idReplacement: true,
        };
        const results: LoadResult[] = [];
        const rounds: [LoadResult, LoadResult][] = [];
        const slice = Math.max(2, Math.round(options.duration / 2));
        for (let round = 1; round <= ROUNDS; round++) {
          const pair: LoadResult[] = [];
          for (const target of [create, instantiate]) {
            // The first slice of each route is warmed up; the later ones follow a warm server.
            const sliceOptions = { ...options, duration: slice, warmup: round === 1 ? options.warmup : 0 };
            process.stdout.write(`  ${kind}: round ${round}/${ROUNDS}, ${target.name} (${slice}s)…\n`);
            const result = await measure(target, sliceOptions, () => backendPids(runtime.ctx));
            pair.push({ ...result, name: `${target.name} ${round}` });
          }
          results.push(...pair);
          rounds.push(pair as [LoadResult, LoadResult]);
        }
        const roundRatios = rounds.map(([c, i]) => i.reqPerSec / c.reqPerSec);
        const ratio = median(roundRatios);
        return {
          database: kind,
          engine: await engineVersion(runtime.ctx),
          results,
          roundRatios,
          ratio,
          cpuRatio: median(rounds.map(([c, i]) => cost(c) / cost(i))),
          targetMet: ratio >= TEMPLATE_TARGETS.instantiateVsCreate,
        };
      } finally {
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

export async function runTemplates(options: BenchOptions): Promise<TemplateReport> {
  const runs = await perDatabase(
    options,
    (kind) => benchDatabase(kind, options),
    (kind, error): TemplateRun => ({
      database: kind,
      engine: kind,
      error: error instanceof Error ? error.message : String(error),
      results: [],
    }),
  );
  return { runs, ok: runs.every((r) => r.error === undefined && r.results.every((x) => !x.failed)) };
}

export function printTemplates(report: TemplateReport): void {
  for (const run of report.runs) {
    console.log(`\n${run.engine}`);
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
          'server µs/req',
          'db µs/req',
          'cores bench/db/others',
          'run',
        ],
        rows,
      ),
    );
    if (run.ratio === undefined) continue;
    console.log(`  rounds' instantiate/create: ${(run.roundRatios ?? []).map((r) => fixed(r, 3)).join(', ')}`);
    console.log(
      `  instantiate/create = ${fixed(run.ratio, 3)}, the median round (by CPU per request ${fixed(run.cpuRatio ?? Number.NaN, 3)})  target >= ${TEMPLATE_TARGETS.instantiateVsCreate}: ${run.targetMet ? 'met' : 'MISSED'}`,
    );
  }
}
