/**
 * `npm run bench -- [section...] [--only sqlite|postgres] [--duration N] [--warmup N] [--connections N] [--retries N]
 * [--rows N]`
 *
 * Runs the benchmark sections (all by default: `server`, `workflow`, `legacy`, `webhooks`, `templates`, `bulk`,
 * `signing`, `signing-page`, `console`), prints their tables, writes
 * bench/results/<section>-<date>.json, and exits 1 only when a run had errors (2 when the
 * benchmark itself broke). Missed targets are printed as MISSED but do not fail the run, so the
 * numbers can still be recorded. See docs/performance.md.
 */
import { machineBusyCores } from './cpu.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printServerApi, runServerApi, TARGETS } from './server-api.js';
import { machineInfo, parseBenchOptions, writeResults, type BenchOptions } from './support.js';
import { printWorkflow, runWorkflow, WORKFLOW_TARGETS } from './workflow.js';
import { printWebhooks, runWebhooks, WEBHOOK_TARGETS } from './webhooks.js';
import { LEGACY_TARGETS, printLegacy, runLegacy } from './legacy.js';
import { PAGE_TARGETS, printSigningPage, runSigningPage } from './signing-page.js';
import { printTemplates, runTemplates, TEMPLATE_TARGETS } from './templates.js';
import { LIST_TARGETS, printEnvelopeList, runEnvelopeList } from './envelope-list.js';
import { BULK_TARGETS, printBulk, runBulk } from './bulk.js';
import { CONSOLE_TARGETS, printConsole, runConsole } from './console.js';

interface Section {
  readonly description: string;
  /** Runs, prints, and returns the JSON to record plus whether every run was free of errors. */
  run(options: BenchOptions): Promise<{ ok: boolean; data: unknown }>;
}

/** Each signing benchmark runs in its own process (it measures peak memory; signing.ts owns a SoftHSM token). */
function runBenchScript(script: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))], {
      stdio: 'inherit',
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

/** signing.ts (SoftHSM), then signing-bigdocs.ts (issue 30: big documents against pyHanko and SHA-256). */
async function runSigningBench(): Promise<boolean> {
  const token = await runBenchScript('./signing.ts');
  const bigDocs = await runBenchScript('./signing-bigdocs.ts');
  return token && bigDocs;
}

const SECTIONS: Record<string, Section> = {
  server: {
    description: 'office server HTTP API: baseline route, envelope status, envelope create',
    async run(options) {
      const report = await runServerApi(options);
      printServerApi(report);
      return { ok: report.ok, data: { targets: TARGETS, ...report } };
    },
  },
  workflow: {
    description:
      'one-signer electronic envelopes end to end over HTTP (create, upload, field, send, session, sign), 10 at a time, job runner on',
    async run(options) {
      const report = await runWorkflow(options);
      printWorkflow(report);
      return { ok: report.ok, data: { targets: WORKFLOW_TARGETS, ...report } };
    },
  },
  legacy: {
    description:
      "legacy API: creates/s from a local doc_url (1-page PDF); the rate limiter's cost on GET /document/app/sign/status/{id}/ (with vs without, alternating)",
    async run(options) {
      const report = await runLegacy(options);
      printLegacy(report);
      return { ok: report.ok, data: { targets: LEGACY_TARGETS, ...report } };
    },
  },
  webhooks: {
    description:
      'webhook deliveries to a local receiver: 10,000 queued events drained (deliveries/s), then 10,000 at 200 events/s (event-to-delivery latency)',
    async run(options) {
      const report = await runWebhooks(options);
      printWebhooks(report);
      return { ok: report.ok, data: { targets: WEBHOOK_TARGETS, ...report } };
    },
  },
  signing: {
    description:
      'signing engine on SoftHSM: 1-page overhead, 50 MB file (time vs SHA-256, peak RSS), 200-page chain; then big documents ' +
      'against pyHanko (PYHANKO_PATH) and SHA-256 (results in bench/results/signing-*.json)',
    async run() {
      return { ok: await runSigningBench(), data: { see: 'bench/results/signing-*.json' } };
    },
  },
  templates: {
    description:
      'templates: instantiate a 3-role, 20-field template (fresh Idempotency-Key each) vs envelope create, same server and run',
    async run(options) {
      const report = await runTemplates(options);
      printTemplates(report);
      return { ok: report.ok, data: { targets: TEMPLATE_TARGETS, ...report } };
    },
  },
  bulk: {
    description:
      'bulk send: one POST /bulk-sends of 10,000 rows (--rows N) of a 2-recipient, 1-page source; 202 to completed, status p99 meanwhile, peak RSS',
    async run(options) {
      const report = await runBulk(options);
      printBulk(report);
      return { ok: report.ok, data: { targets: BULK_TARGETS, ...report } };
    },
  },
  console: {
    description:
      'office console in headless Chromium: envelope list shown to a returning user (fresh cache, refresh cookie), login form for a visitor (median of 5)',
    async run() {
      const report = await runConsole();
      printConsole(report);
      return { ok: report.ok, data: { targets: CONSOLE_TARGETS, ...report } };
    },
  },
  'envelope-list': {
    description:
      'GET /envelopes with 100,000 envelopes (--rows N): p50/p95 of search, filter, first and deep pages, one request at a time',
    async run(options) {
      const report = await runEnvelopeList(options);
      printEnvelopeList(report);
      return { ok: report.ok, data: { targets: LIST_TARGETS, ...report } };
    },
  },
  'signing-page': {
    description:
      'hosted signing page in headless Chromium: first page drawn and all fields interactive for a 10-page PDF (median of 5), JavaScript size gzipped',
    async run() {
      const report = await runSigningPage();
      printSigningPage(report);
      return { ok: report.ok, data: { targets: PAGE_TARGETS, ...report } };
    },
  },
};

/** Figures are comparable only on the Node line the product runs on (package.json engines, .nvmrc). */
const SUPPORTED_NODE_MAJOR = 24;

async function main(): Promise<number> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor !== SUPPORTED_NODE_MAJOR) {
    console.error(`benchmarks run on Node ${SUPPORTED_NODE_MAJOR} (this is ${process.version}): see README.md`);
    return 2;
  }
  const options = parseBenchOptions(process.argv.slice(2));
  const unknown = options.sections.filter((s) => !(s in SECTIONS));
  if (unknown.length > 0) {
    throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  }
  const names = options.sections.length > 0 ? options.sections : Object.keys(SECTIONS);
  const machine = machineInfo();
  console.log(
    `Mohar benchmarks on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node} ${machine.platform}`,
  );
  console.log(
    `autocannon: ${options.connections} connections, ${options.warmup}s warm-up, ${options.duration}s measured per route`,
  );
  const busyBefore = await machineBusyCores();
  if (busyBefore !== undefined && busyBefore > 0.2) {
    console.log(
      `WARNING: the machine was already keeping ${busyBefore} of ${machine.cores} cores busy before starting; other processes compete with the benchmark, so numbers will be low and noisy (see the "others" column)`,
    );
  }
  let ok = true;
  for (const name of names) {
    const section = SECTIONS[name]!;
    console.log(`\n== ${name}: ${section.description}`);
    const startedAt = new Date().toISOString();
    const result = await section.run(options);
    const file = await writeResults(name, {
      section: name,
      startedAt,
      machine: { ...machine, busyCoresBefore: busyBefore },
      options,
      ...(result.data as object),
    });
    console.log(`\nresults: ${file}`);
    if (!result.ok) {
      console.log(`${name}: FAILED (a run had errors or non-2xx responses)`);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
