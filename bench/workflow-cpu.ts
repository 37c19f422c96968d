/**
 * CPU per envelope on a fixed workload (`node --import tsx bench/workflow-cpu.ts`): N one-signer electronic
 * envelopes (default 150, MOHAR_CPU_ENVELOPES) through the real app with app.inject (no sockets, no client
 * process) and the job runner, one at a time after 20 warm-up ones, on SQLite. Prints, as JSON, the CPU per
 * envelope of the event-loop thread and of every other thread (from /proc/<pid>/task/<tid>/schedstat, in ns)
 * and of the whole process (process.cpuUsage()). CPU time, not wall time: usable on a busy machine, where
 * `npm run bench -- workflow` latencies are not. Linux only. MOHAR_CPU_BY_THREAD=1 lists the threads apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { API_BASE } from '../common/api-paths.js';
import { buildServerApp } from '../server/app.js';
import { parseConfig } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { generateApiKey } from '../server/domain/keys/api-keys.js';
import { jobRunnerFor } from '../server/start.js';
import { openRuntime } from '../server/runtime.js';
import { createTestDatabase } from '../test/support/databases.js';
import { makePdf } from '../test/support/pdf-fixtures.js';

const N = Number(process.env.MOHAR_CPU_ENVELOPES ?? 150);
const CONC = 1;
const WARM = 20;

function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // schedstat: nanoseconds on the CPU (not 10 ms ticks)
      const ns = Number(readFileSync(`/proc/${process.pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const key =
        tid === String(process.pid)
          ? 'main'
          : process.env.MOHAR_CPU_BY_THREAD
            ? `${comm}:${Number(tid) - process.pid}`
            : comm;
      out.set(key, (out.get(key) ?? 0) + ns / 1e6);
    } catch {
      /* thread gone */
    }
  }
  return out;
}

const database = await createTestDatabase('sqlite');
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
const account = await createAccount(ctx, {
  name: 'Bench',
  email: 'bench@example.com',
  password: 'bench-password-0123',
});
const { api_key: key } = await generateApiKey(ctx, account.accountId, 'live');
await ctx.seal();
const { app } = await buildServerApp(ctx);
await app.ready();
const runner = jobRunnerFor(ctx);
runner.start();
const pdf = makePdf({ pages: [{ text: 'Mohar workflow benchmark: one page, one signer.' }] });
const boundary = 'mohar-cpu-workload';
const multipart = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="agreement.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
  ),
  pdf,
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);

async function call(
  method: string,
  url: string,
  payload: unknown,
  expected: number,
  headers: Record<string, string> = { 'x-api-key': key },
) {
  const r = await app.inject({
    method,
    url: `${API_BASE}${url}`,
    headers:
      payload === undefined || Buffer.isBuffer(payload) ? headers : { ...headers, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: Buffer.isBuffer(payload) ? payload : JSON.stringify(payload) }),
  });
  if (r.statusCode !== expected) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
  return r.json();
}

async function envelope(i: number, label: string) {
  const created = await call(
    'POST',
    '/envelopes',
    {
      title: `CPU ${label} ${i}`,
      message: 'Please sign',
      recipients: [{ name: `Signer ${i}`, email: `s-${label}-${i}@example.com` }],
    },
    201,
  );
  const rid = created.recipients[0].recipient_id;
  const doc = await call('POST', `/envelopes/${created.id}/documents`, multipart, 201, {
    'x-api-key': key,
    'content-type': `multipart/form-data; boundary=${boundary}`,
  });
  await call(
    'PUT',
    `/envelopes/${created.id}/documents/${doc.document_id}/fields`,
    { fields: [{ recipient_id: rid, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 }] },
    200,
  );
  await call('POST', `/envelopes/${created.id}/send`, undefined, 200);
  const session = await call(
    'POST',
    `/envelopes/${created.id}/signing-sessions`,
    { recipient_id: rid, mode: 'redirect' },
    201,
  );
  const token = session.signing_url.split('/sign/')[1];
  const act = await call(
    'POST',
    `/signing/${token}`,
    { action: 'sign', consent: true, signature: { kind: 'typed', text: `Signer ${i}` } },
    200,
    { 'user-agent': 'mohar-cpu/1.0' },
  );
  if (act.envelope_status !== 'completed') throw new Error(`not completed: ${JSON.stringify(act)}`);
}

async function drain() {
  for (;;) {
    const r = await sql`select count(*) as n from jobs where state in ('queued', 'running')`.execute(ctx.db);
    if (Number((r.rows[0] as { n: number }).n) === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function run(count: number, label: string) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < count) await envelope(next++, label);
    }),
  );
  await drain();
}

await run(WARM, 'warm');
const t0 = threads();
const u0 = process.cpuUsage();
const w0 = performance.now();
await run(N, 'run');
const wall = performance.now() - w0;
const u = process.cpuUsage(u0);
const t1 = threads();
const per = (ms: number) => (ms / N).toFixed(2);
const rows = [...t1]
  .map(([k, v]) => [k, v - (t0.get(k) ?? 0)] as const)
  .filter(([, v]) => v > 0)
  .sort((a, b) => b[1] - a[1]);
const certs = await sql`select count(*) as n from envelopes where certificate_sha256 is not null`.execute(ctx.db);
console.log(
  JSON.stringify({
    n: N,
    conc: CONC,
    wallMsPerEnvelope: Number(per(wall)),
    processMsPerEnvelope: Number(per((u.user + u.system) / 1000)),
    threadsMsPerEnvelope: Object.fromEntries(rows.map(([k, v]) => [k, Number(per(v))])),
    certificates: Number((certs.rows[0] as { n: number }).n),
  }),
);
await runner.stop({ timeoutMs: 10_000 });
await app.close();
await runtime.close();
await database.drop();
process.exit(0);
