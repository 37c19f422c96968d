/**
 * The signing-engine benchmark (issue 3):
 *
 * node --import tsx bench/signing.ts [--reps 20] [--warmup 3] [--big-mb 50] [--big-runs 5] [--chain-reps 10]
 * [--profile]
 *
 * On a fresh SoftHSM2 token (test/support/softhsm.ts: RSA-2048 and P-256 keys), in one run:
 *   1. a 1-page PDF signed PAdES B-B into a new visible field, RSA then P-256: time per signature, time
 *      inside the provider's sign() (the token operation), and the difference = Mohar's overhead;
 *   2. a ~50 MB PDF (incompressible image streams, checked once with qpdf --check) signed the same way,
 *      each time in a child process of its own (bench/signing-child.ts): signing time / SHA-256 time of
 *      the same bytes in that process, and the child's peak RSS; plus, in this process, where the
 *      time goes (reader open, prepare, CMS, token, embed, prefix check);
 *   3. a 3-signature chain (RSA, P-256, RSA) on a 200-page PDF, and verifyPdf of the result.
 * Prints a table with MET / MISSED per target, writes bench/results/signing-<date>.json, and exits 0
 * unless a run errored (1) or the benchmark itself broke (2). See docs/performance-signing.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pkcs11Module } from '../native/index.js';
import {
  assertPrefix,
  createSignedData,
  embedSignature,
  PdfReader,
  prepareSignature,
  signPades,
  verifyPdf,
  type SignatureFieldChoice,
  type SignatureProvider,
} from '../pdf/index.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
import { createSoftHsm, type SoftHsm } from '../test/support/softhsm.js';
import {
  MIB,
  makeBigPdf,
  openTokenSigner,
  round,
  stats,
  timeAsync,
  timedProvider,
  timeSync,
  VISIBLE_FIELD,
  type ChildReport,
  type Stats,
} from './signing-support.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);
const RESULTS_DIR = join(BENCH_DIR, 'results');

/** The targets of issue 3. */
const TARGETS = {
  /** Median (signature time - time in the provider's sign()) for a 1-page PDF, ms, per key type. */
  overheadMs: 15,
  /** Median large-file signing time / SHA-256 time of the same bytes, same process. */
  bigRatio: 3,
  /** Peak RSS of the signing process <= factor x file size + base. */
  rssFileFactor: 2.5,
  rssBaseBytes: 100 * MIB,
} as const;

interface Options {
  reps: number;
  warmup: number;
  bigMb: number;
  bigRuns: number;
  chainReps: number;
  profile: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      reps: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '3' },
      'big-mb': { type: 'string', default: '50' },
      'big-runs': { type: 'string', default: '5' },
      'chain-reps': { type: 'string', default: '10' },
      profile: { type: 'boolean', default: false },
    },
  });
  const whole = (name: string, raw: string, min: number): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      throw new Error(`--${name} must be a whole number >= ${min} (got "${raw}")`);
    }
    return Number(raw);
  };
  return {
    reps: whole('reps', values.reps, 1),
    warmup: whole('warmup', values.warmup, 0),
    bigMb: whole('big-mb', values['big-mb'], 1),
    bigRuns: whole('big-runs', values['big-runs'], 1),
    chainReps: whole('chain-reps', values['chain-reps'], 1),
    profile: values.profile,
  };
}

// ---------------------------------------------------------------- machine

function toolVersion(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')[0]!
      .trim();
  } catch {
    return null;
  }
}

function systemTicks(): { busy: number; total: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3]! - f[4]!, total };
  } catch {
    return undefined;
  }
}

/** CPU ticks of this process and of its waited-for children (the large-file signers), from /proc/self/stat. */
function ownTicks(): number | undefined {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  } catch {
    return undefined;
  }
}

/** More cores than this taken by other processes during a section marks its numbers as disturbed. */
const DISTURBED_CORES = 0.25;

/** Starts watching; the returned function gives the cores other processes kept busy meanwhile (Linux). */
function watchOthers(): () => number | null {
  const system = systemTicks();
  const own = ownTicks();
  return () => {
    const systemNow = systemTicks();
    const ownNow = ownTicks();
    if (!system || !systemNow || own === undefined || ownNow === undefined || systemNow.total === system.total) {
      return null;
    }
    const cores = availableParallelism();
    const busy = ((systemNow.busy - system.busy) / (systemNow.total - system.total)) * cores;
    const ours = (ownNow - own) / ((systemNow.total - system.total) / cores);
    return round(Math.max(0, busy - ours));
  };
}

/** Cores kept busy by everything on the machine over one second (Linux), before we start. */
async function busyCores(): Promise<number | null> {
  const a = systemTicks();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const b = systemTicks();
  return a && b ? round(((b.busy - a.busy) / (b.total - a.total)) * availableParallelism()) : null;
}

function machineInfo() {
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    softhsm: toolVersion('softhsm2-util', ['--version']),
    qpdf: toolVersion('qpdf', ['--version']),
  };
}

// ---------------------------------------------------------------- checks

function qpdfCheckFile(path: string): { checked: boolean; ok: boolean; output: string } {
  const r = spawnSync('qpdf', ['--check', path], { encoding: 'utf8', maxBuffer: 16 * MIB });
  if (r.error) return { checked: false, ok: false, output: String(r.error) };
  return {
    checked: true,
    ok: r.status === 0,
    output: `${r.stdout}${r.stderr}`.trim().split('\n').slice(-3).join(' / '),
  };
}

function assertValid(bytes: Uint8Array, signatures: number, what: string): void {
  const report = verifyPdf(bytes);
  if (!report.valid || report.signatures.length !== signatures) {
    throw new Error(
      `${what}: verifyPdf says valid=${report.valid} with ${report.signatures.length} signature(s): ${JSON.stringify(report.signatures.map((s) => s.problems))}`,
    );
  }
}

// ---------------------------------------------------------------- 1. one page

interface SmallResult {
  key: 'RSA' | 'EC';
  totalMs: Stats;
  tokenMs: Stats;
  overheadMs: Stats;
  phases: Phases;
}

async function runSmall(signer: SignatureProvider, key: 'RSA' | 'EC', options: Options): Promise<SmallResult> {
  const pdf = makePdf({ pages: [{ text: 'One-page agreement' }] });
  const timed = timedProvider(signer);
  const signingTime = new Date();
  const sign = () =>
    signPades(pdf, timed.provider, {
      level: 'B-B',
      field: VISIBLE_FIELD,
      signingTime,
      name: `${key} signer`,
      reason: 'bench',
    });
  for (let i = 0; i < options.warmup; i++) await sign();
  timed.take();
  const total: number[] = [];
  const token: number[] = [];
  const overhead: number[] = [];
  let last: Uint8Array | undefined;
  for (let i = 0; i < options.reps; i++) {
    const { value, ms } = await timeAsync(sign);
    const t = timed.take();
    total.push(ms);
    token.push(t);
    overhead.push(ms - t);
    last = value.bytes;
  }
  assertValid(last!, 1, `1-page ${key}`);
  const phases = await measurePhases(pdf, signer, options.reps, options.warmup, false);
  return { key, totalMs: stats(total), tokenMs: stats(token), overheadMs: stats(overhead), phases };
}

// ---------------------------------------------------------------- phases (in this process)

/**
 * signPdf's steps one by one, each timed, as pdf/sign/sign-pdf.ts runs them today: prepareSignature,
 * the CMS callback (createSignedData; the token part timed apart), embedSignature (the public function:
 * it hashes the ByteRange again and copies the file), assertPrefix. Plus a separate PdfReader.open
 * (prepare opens its own) and, for large files, what one pass over the bytes costs (SHA-256, MD5, a
 * copy, a compare), to read the other columns in units of whole-file passes.
 */
interface Phases {
  readerOpenMs: Stats;
  prepareMs: Stats;
  cmsWithoutTokenMs: Stats;
  tokenMs: Stats;
  embedMs: Stats;
  prefixCheckMs: Stats;
  sumMs: Stats;
  reference?: { sha256Ms: Stats; md5Ms: Stats; copyMs: Stats; compareMs: Stats };
}

async function measurePhases(
  bytes: Buffer,
  signer: SignatureProvider,
  reps: number,
  warmup: number,
  reference: boolean,
): Promise<Phases> {
  const timed = timedProvider(signer);
  const field: SignatureFieldChoice = VISIBLE_FIELD;
  const signingTime = new Date();
  const rows: Record<
    'open' | 'prepare' | 'cms' | 'token' | 'embed' | 'prefix' | 'sum' | 'sha' | 'md5' | 'copy' | 'compare',
    number[]
  > = {
    open: [],
    prepare: [],
    cms: [],
    token: [],
    embed: [],
    prefix: [],
    sum: [],
    sha: [],
    md5: [],
    copy: [],
    compare: [],
  };
  for (let i = 0; i < warmup + reps; i++) {
    const open = timeSync(() => PdfReader.open(bytes));
    const prepare = timeSync(() => prepareSignature(bytes, { field, signingTime, timestamp: false }));
    timed.take();
    const cms = await timeAsync(() =>
      createSignedData({ messageDigest: prepare.value.digest, signer: timed.provider }),
    );
    const token = timed.take();
    const embed = timeSync(() => embedSignature(prepare.value, cms.value));
    const prefix = timeSync(() => assertPrefix(bytes, embed.value));
    if (i < warmup) continue;
    rows.open.push(open.ms);
    rows.prepare.push(prepare.ms);
    rows.cms.push(cms.ms - token);
    rows.token.push(token);
    rows.embed.push(embed.ms);
    rows.prefix.push(prefix.ms);
    rows.sum.push(prepare.ms + cms.ms + embed.ms + prefix.ms);
    if (reference) {
      rows.sha.push(timeSync(() => createHash('sha256').update(bytes).digest()).ms);
      rows.md5.push(timeSync(() => createHash('md5').update(bytes).digest()).ms);
      const copy = timeSync(() => Buffer.from(bytes));
      rows.copy.push(copy.ms);
      rows.compare.push(timeSync(() => bytes.equals(copy.value)).ms);
    }
  }
  return {
    readerOpenMs: stats(rows.open),
    prepareMs: stats(rows.prepare),
    cmsWithoutTokenMs: stats(rows.cms),
    tokenMs: stats(rows.token),
    embedMs: stats(rows.embed),
    prefixCheckMs: stats(rows.prefix),
    sumMs: stats(rows.sum),
    ...(reference
      ? {
          reference: {
            sha256Ms: stats(rows.sha),
            md5Ms: stats(rows.md5),
            copyMs: stats(rows.copy),
            compareMs: stats(rows.compare),
          },
        }
      : {}),
  };
}

// ---------------------------------------------------------------- 2. ~50 MB

interface BigResult {
  fileBytes: number;
  qpdfCheckInput: string;
  qpdfCheckSigned: string;
  runs: ChildReport[];
  signMs: Stats;
  tokenMs: Stats;
  sha256Ms: Stats;
  ratio: Stats;
  peakRssBytes: Stats;
  rssLimitBytes: number;
  rssBeforeReadBytes: Stats;
  phases: Phases;
  profile: string | null;
}

function runChild(
  hsm: SoftHsm,
  certId: string,
  input: string,
  output: string | undefined,
  nodeFlags: string[] = [],
): ChildReport {
  const r = spawnSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', join(BENCH_DIR, 'signing-child.ts'), input, ...(output ? [output] : [])],
    {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * MIB,
      env: {
        ...process.env,
        SOFTHSM2_CONF: hsm.confPath,
        MOHAR_BENCH_MODULE: hsm.modulePath,
        MOHAR_BENCH_SERIAL: hsm.tokenSerial,
        MOHAR_BENCH_CERT_ID: certId,
        MOHAR_BENCH_PIN: hsm.pin,
      },
    },
  );
  if (r.status !== 0) throw new Error(`signing-child exited with ${r.status ?? r.signal}: ${r.stderr || r.error}`);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as ChildReport;
}

async function runBig(
  hsm: SoftHsm,
  signer: SignatureProvider,
  certId: string,
  dir: string,
  options: Options,
): Promise<BigResult> {
  const pdf = makeBigPdf(options.bigMb * MIB, (b) => randomFillSync(b));
  const input = join(dir, 'big.pdf');
  const output = join(dir, 'big-signed.pdf');
  writeFileSync(input, pdf);
  const inputCheck = qpdfCheckFile(input);
  if (inputCheck.checked && !inputCheck.ok) {
    throw new Error(`qpdf --check refuses the ${options.bigMb} MB test PDF: ${inputCheck.output}`);
  }
  process.stdout.write(
    `  test file: ${(pdf.length / MIB).toFixed(1)} MiB, qpdf --check: ${inputCheck.checked ? 'ok' : 'not run (no qpdf)'}\n`,
  );

  const runs: ChildReport[] = [];
  for (let i = 0; i < options.bigRuns; i++) {
    runs.push(runChild(hsm, certId, input, i === 0 ? output : undefined));
    process.stdout.write(
      `  child ${i + 1}/${options.bigRuns}: ${runs[i]!.signMs.toFixed(0)} ms, peak RSS ${(runs[i]!.maxRssBytes / MIB).toFixed(0)} MiB\n`,
    );
  }
  const signed = readFileSync(output);
  const signedCheck = qpdfCheckFile(output);
  if (signedCheck.checked && !signedCheck.ok) {
    throw new Error(`qpdf --check refuses the signed ${options.bigMb} MB PDF: ${signedCheck.output}`);
  }
  assertValid(signed, 1, `${options.bigMb} MB`);

  let profile: string | null = null;
  if (options.profile) {
    profile = join(RESULTS_DIR, 'profiles');
    mkdirSync(profile, { recursive: true });
    runChild(hsm, certId, input, undefined, ['--cpu-prof', '--cpu-prof-dir', profile]);
    process.stdout.write(`  CPU profile of one more (uncounted) child: ${profile}\n`);
  }
  const phases = await measurePhases(pdf, signer, Math.max(3, Math.min(options.bigRuns, 5)), 1, true);
  return {
    fileBytes: pdf.length,
    qpdfCheckInput: inputCheck.checked ? (inputCheck.ok ? 'ok' : inputCheck.output) : 'not run',
    qpdfCheckSigned: signedCheck.checked ? (signedCheck.ok ? 'ok' : signedCheck.output) : 'not run',
    runs,
    signMs: stats(runs.map((r) => r.signMs)),
    tokenMs: stats(runs.map((r) => r.tokenMs)),
    sha256Ms: stats(runs.map((r) => r.sha256Ms)),
    ratio: stats(runs.map((r) => r.signMs / r.sha256Ms)),
    peakRssBytes: stats(runs.map((r) => r.maxRssBytes)),
    rssLimitBytes: TARGETS.rssFileFactor * pdf.length + TARGETS.rssBaseBytes,
    rssBeforeReadBytes: stats(runs.map((r) => r.rssBeforeReadBytes)),
    phases,
    profile,
  };
}

// ---------------------------------------------------------------- 3. chain on 200 pages

interface ChainResult {
  pages: number;
  inputBytes: number;
  outputBytes: number;
  signatureMs: [Stats, Stats, Stats];
  tokenMs: [Stats, Stats, Stats];
  chainMs: Stats;
  verifyMs: Stats;
  qpdfCheck: string;
}

async function runChain(
  rsa: SignatureProvider,
  ec: SignatureProvider,
  dir: string,
  options: Options,
): Promise<ChainResult> {
  const pages = 200;
  const pdf = makePdf({ pages: Array.from({ length: pages }, (_, i) => ({ text: `Page ${i + 1} of the agreement` })) });
  const timedRsa = timedProvider(rsa);
  const timedEc = timedProvider(ec);
  const signingTime = new Date();
  const steps: { provider: ReturnType<typeof timedProvider>; field: SignatureFieldChoice }[] = [
    { provider: timedRsa, field: { page: 1, rect: { x: 30, y: 30, width: 180, height: 50 } } },
    { provider: timedEc, field: { page: 100, rect: { x: 30, y: 100, width: 180, height: 50 } } },
    { provider: timedRsa, field: { page: 200, rect: { x: 30, y: 170, width: 180, height: 50 } } },
  ];
  const sig: [number[], number[], number[]] = [[], [], []];
  const tok: [number[], number[], number[]] = [[], [], []];
  const chain: number[] = [];
  const verify: number[] = [];
  let result: Buffer = pdf;
  for (let rep = 0; rep < 1 + options.chainReps; rep++) {
    let bytes: Buffer = pdf;
    let total = 0;
    const times: number[] = [];
    const tokens: number[] = [];
    for (const [i, step] of steps.entries()) {
      step.provider.take();
      const { value, ms } = await timeAsync(() =>
        signPades(bytes, step.provider.provider, {
          level: 'B-B',
          field: step.field,
          signingTime,
          reason: `signature ${i + 1}`,
        }),
      );
      times.push(ms);
      tokens.push(step.provider.take());
      total += ms;
      bytes = value.bytes;
    }
    const v = timeSync(() => verifyPdf(bytes));
    if (!v.value.valid || v.value.signatures.length !== 3) {
      throw new Error(
        `200-page chain: verifyPdf says valid=${v.value.valid} with ${v.value.signatures.length} signature(s)`,
      );
    }
    result = bytes;
    if (rep === 0) continue; // warm-up
    times.forEach((t, i) => sig[i as 0 | 1 | 2].push(t));
    tokens.forEach((t, i) => tok[i as 0 | 1 | 2].push(t));
    chain.push(total);
    verify.push(v.ms);
  }
  const path = join(dir, 'chain.pdf');
  writeFileSync(path, result);
  const check = qpdfCheckFile(path);
  if (check.checked && !check.ok) throw new Error(`qpdf --check refuses the signed 200-page PDF: ${check.output}`);
  return {
    pages,
    inputBytes: pdf.length,
    outputBytes: result.length,
    signatureMs: [stats(sig[0]), stats(sig[1]), stats(sig[2])],
    tokenMs: [stats(tok[0]), stats(tok[1]), stats(tok[2])],
    chainMs: stats(chain),
    verifyMs: stats(verify),
    qpdfCheck: check.checked ? 'ok' : 'not run',
  };
}

// ---------------------------------------------------------------- report

type Verdict = 'MET' | 'MISSED' | 'ERROR';

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const ms = (s: Stats, digits = 1): [string, string, string] => [
  s.median.toFixed(digits),
  s.p90.toFixed(digits),
  String(s.n),
];
const mib = (s: Stats): [string, string, string] => [
  (s.median / MIB).toFixed(0),
  (s.p90 / MIB).toFixed(0),
  String(s.n),
];

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const machine = machineInfo();
  const busyBefore = await busyCores();
  const loadBefore = loadavg().map((n) => round(n));
  const startedAt = new Date().toISOString();
  console.log(
    `Mohar signing benchmark on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node} ${machine.platform}; ${machine.softhsm ? `SoftHSM ${machine.softhsm}` : 'SoftHSM ?'}`,
  );
  console.log(`load average ${loadBefore.join(' ')}; cores busy before start: ${busyBefore ?? 'unknown'}`);
  if (busyBefore !== null && busyBefore > DISTURBED_CORES) {
    console.log(
      `WARNING: other processes were keeping ${busyBefore} of ${machine.cores} cores busy before the start: times will be high and noisy.`,
    );
  }

  const errors: Record<string, string> = {};
  /** Cores other processes kept busy during each section (null where /proc cannot tell). */
  const othersCores: Record<string, number | null> = {};
  const results: {
    small?: SmallResult[];
    big?: BigResult;
    chain?: ChainResult;
    signerSetupMs?: Record<string, number>;
  } = {};
  const hsm = createSoftHsm();
  const dir = mkdtempSync(join(tmpdir(), 'mohar-bench-signing-'));
  let module: Pkcs11Module | undefined;
  try {
    module = await Pkcs11Module.open(hsm.modulePath);
    const keyOf = (type: 'RSA' | 'EC') => {
      const k = hsm.keys.find((key) => key.type === type && key.certificateId !== null);
      if (!k) throw new Error(`no ${type} key with a certificate on the SoftHSM token`);
      return { modulePath: hsm.modulePath, serial: hsm.tokenSerial, certId: k.certificateId!, pin: hsm.pin };
    };
    const rsaSetup = await timeAsync(() => openTokenSigner(module!, keyOf('RSA')));
    const ecSetup = await timeAsync(() => openTokenSigner(module!, keyOf('EC')));
    results.signerSetupMs = { RSA: round(rsaSetup.ms), EC: round(ecSetup.ms) };
    const rsa = rsaSetup.value;
    const ec = ecSetup.value;

    const endSection = (name: string, watch: () => number | null): void => {
      const cores = watch();
      othersCores[name] = cores;
      if (cores !== null) {
        console.log(
          `  other processes kept ${cores} cores busy meanwhile${cores > DISTURBED_CORES ? ' (DISTURBED: these numbers are high and noisy)' : ''}`,
        );
      }
    };
    console.log(
      `\n== 1. one page, PAdES B-B, visible field: ${options.reps} signatures per key after ${options.warmup} warm-up`,
    );
    let watch = watchOthers();
    results.small = [];
    for (const [key, signer] of [
      ['RSA', rsa],
      ['EC', ec],
    ] as const) {
      try {
        results.small.push(await runSmall(signer, key, options));
      } catch (error) {
        errors[`small-${key}`] = error instanceof Error ? error.message : String(error);
        console.log(`  ${key}: ERROR ${errors[`small-${key}`]}`);
      }
    }

    endSection('small', watch);
    console.log(`\n== 2. ~${options.bigMb} MB PDF, RSA, one signature per child process, ${options.bigRuns} processes`);
    watch = watchOthers();
    try {
      results.big = await runBig(hsm, rsa, keyOf('RSA').certId, dir, options);
    } catch (error) {
      errors.big = error instanceof Error ? error.message : String(error);
      console.log(`  ERROR ${errors.big}`);
    }

    endSection('big', watch);
    console.log(`\n== 3. 200-page PDF, chain RSA -> P-256 -> RSA, ${options.chainReps} chains after 1 warm-up`);
    watch = watchOthers();
    try {
      results.chain = await runChain(rsa, ec, dir, options);
    } catch (error) {
      errors.chain = error instanceof Error ? error.message : String(error);
      console.log(`  ERROR ${errors.chain}`);
    }
    endSection('chain', watch);
  } finally {
    await module?.close();
    hsm.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }

  // Verdicts.
  const verdicts: Record<string, Verdict> = {};
  const rows: string[][] = [];
  const verdictOf = (ok: boolean): Verdict => (ok ? 'MET' : 'MISSED');
  for (const key of ['RSA', 'EC'] as const) {
    const r = results.small?.find((s) => s.key === key);
    const name = `overhead1Page${key}`;
    if (!r) {
      verdicts[name] = 'ERROR';
      rows.push([`1 page ${key}: overhead (ms)`, '-', '-', '-', `<= ${TARGETS.overheadMs}`, 'ERROR']);
      continue;
    }
    verdicts[name] = verdictOf(r.overheadMs.median <= TARGETS.overheadMs);
    rows.push([`1 page ${key}: signature (ms)`, ...ms(r.totalMs), '', '']);
    rows.push([`1 page ${key}: token sign() (ms)`, ...ms(r.tokenMs), '', '']);
    rows.push([`1 page ${key}: overhead (ms)`, ...ms(r.overheadMs), `<= ${TARGETS.overheadMs}`, verdicts[name]]);
  }
  const big = results.big;
  if (big) {
    const size = `${(big.fileBytes / MIB).toFixed(1)} MiB`;
    verdicts.bigRatio = verdictOf(big.ratio.median <= TARGETS.bigRatio);
    verdicts.bigPeakRss = verdictOf(big.peakRssBytes.median <= big.rssLimitBytes);
    rows.push([`${size}: signature (ms)`, ...ms(big.signMs, 0), '', '']);
    rows.push([`${size}: token sign() (ms)`, ...ms(big.tokenMs), '', '']);
    rows.push([`${size}: SHA-256 of the file (ms)`, ...ms(big.sha256Ms), '', '']);
    rows.push([`${size}: signature / SHA-256`, ...ms(big.ratio, 2), `<= ${TARGETS.bigRatio}`, verdicts.bigRatio]);
    rows.push([
      `${size}: peak RSS (MiB)`,
      ...mib(big.peakRssBytes),
      `<= ${(big.rssLimitBytes / MIB).toFixed(0)}`,
      verdicts.bigPeakRss,
    ]);
    rows.push([`${size}: RSS before reading (MiB)`, ...mib(big.rssBeforeReadBytes), '', '']);
  } else {
    verdicts.bigRatio = 'ERROR';
    verdicts.bigPeakRss = 'ERROR';
    rows.push(['~50 MB', '-', '-', '-', '', 'ERROR']);
  }
  const chain = results.chain;
  if (chain) {
    const names = ['RSA', 'P-256', 'RSA'];
    chain.signatureMs.forEach((s, i) =>
      rows.push([`200 pages: signature ${i + 1} ${names[i]} (ms)`, ...ms(s), '', '']),
    );
    rows.push(['200 pages: chain of 3 (ms)', ...ms(chain.chainMs), '', '']);
    rows.push(['200 pages: verifyPdf (ms)', ...ms(chain.verifyMs), '', '']);
  } else {
    rows.push(['200-page chain', '-', '-', '-', '', 'ERROR']);
  }
  console.log(`\n${table(['measurement', 'median', 'p90', 'n', 'target', 'verdict'], rows)}`);

  const phaseRows: string[][] = [];
  const addPhases = (label: string, p: Phases): void => {
    const cells = (s: Stats): string => s.median.toFixed(1);
    phaseRows.push([
      label,
      cells(p.readerOpenMs),
      cells(p.prepareMs),
      cells(p.cmsWithoutTokenMs),
      cells(p.tokenMs),
      cells(p.embedMs),
      cells(p.prefixCheckMs),
      cells(p.sumMs),
    ]);
  };
  for (const s of results.small ?? []) addPhases(`1 page ${s.key}`, s.phases);
  if (big) addPhases(`${(big.fileBytes / MIB).toFixed(1)} MiB RSA`, big.phases);
  if (phaseRows.length > 0) {
    console.log(
      `\nwhere the time goes (medians, ms, in this process; signPdf's steps called one by one; prepareSignature includes its own reader open):`,
    );
    console.log(
      table(
        [
          'file',
          'PdfReader.open',
          'prepareSignature',
          'CMS w/o token',
          'token sign()',
          'embedSignature',
          'assertPrefix',
          'sum',
        ],
        phaseRows,
      ),
    );
  }
  if (big?.phases.reference) {
    const r = big.phases.reference;
    console.log(
      `one pass over the ${(big.fileBytes / MIB).toFixed(1)} MiB file: SHA-256 ${r.sha256Ms.median.toFixed(1)} ms, MD5 ${r.md5Ms.median.toFixed(1)} ms, copy ${r.copyMs.median.toFixed(1)} ms, compare ${r.compareMs.median.toFixed(1)} ms`,
    );
  }

  const loadAfter = loadavg().map((n) => round(n));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
  const file = join(RESULTS_DIR, `signing-${stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ section: 'signing', startedAt, machine: { ...machine, busyCoresBefore: busyBefore, loadBefore, loadAfter, othersCores }, options, targets: TARGETS, verdicts, errors, ...results }, null, 2)}\n`,
  );
  console.log(`\nresults: ${file}`);
  const disturbedSections = Object.entries(othersCores)
    .filter(([, c]) => c !== null && c > DISTURBED_CORES)
    .map(([n]) => n);
  if (disturbedSections.length > 0) {
    console.log(
      `WARNING: other processes competed for the CPU during ${disturbedSections.join(', ')}: run again on a quiet machine before judging those numbers.`,
    );
  }
  const failed = Object.keys(errors);
  if (failed.length > 0) console.log(`FAILED: ${failed.join(', ')} (see errors above)`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 2;
  },
);
