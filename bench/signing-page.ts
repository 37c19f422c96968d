/**
 * Signing page benchmark (`npm run bench -- signing-page`): how fast the hosted page shows a 10-page PDF in
 * headless Chromium, and how much JavaScript it ships.
 *
 * The production build (renderer/dist, rebuilt when older than its sources) is served by the real app on
 * 127.0.0.1 (SQLite). A 10-page document of text, with one field per page for the signer (a Signature field on
 * page 1, a Text field on every page), is sent; each run opens its signing link in a fresh browser context
 * (empty HTTP cache) at 1280×900 and reads the page's own performance marks, in ms from navigation start:
 *   - mohar:first-page        the first page drawn by pdf.js;
 *   - mohar:fields-interactive every field's overlay usable and every page holding one drawn under it.
 * One warm-up run, then the median of 5. Sizes: every JavaScript file the page loads, gzip -9 (as the server
 * serves them), the pdf.js worker listed separately (it loads in parallel, off the main thread).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM, newContext } from '../test/support/browser.js';
import { makeDraft, sendDraft } from '../test/support/envelopes.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../test/support/renderer.js';
import { API, startTestServer } from '../test/support/server.js';
import { fixed, median, table } from './support.js';

export const PAGE_TARGETS = { firstPageMs: 1000, interactiveMs: 1500, bundleGzipKiB: 350 } as const;

const PAGES = 10;
const RUNS = 5;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Milliseconds from navigation start. */
export interface Marks {
  domContentLoadedMs: number;
  viewLoadedMs: number;
  pdfjsLoadedMs: number;
  documentOpenedMs: number;
  firstPageMs: number;
  interactiveMs: number;
}

export interface AssetSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface SigningPageReport {
  ok: boolean;
  error?: string;
  pages: number;
  runs: Marks[];
  median?: Marks;
  javascript: AssetSize[];
  worker: AssetSize | null;
  css: AssetSize[];
  bundleGzipKiB: number;
}

function sizes(dir: string, files: string[]): AssetSize[] {
  return files.map((file) => {
    const bytes = readFileSync(join(dir, file));
    return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
}

/** A page of contract-like text: a heading and 40 lines of 11-point Helvetica. */
function textPage(n: number): { text: string; content: string } {
  const line =
    'The tenant shall pay the rent on the first day of every month, by bank transfer to the account named above.';
  const lines = Array.from({ length: 40 }, (_, i) => `(${i + 1}. ${line.slice(0, 70 + (i % 30))}) '`).join('\n');
  return { text: `Rental agreement, page ${n}`, content: `BT /F1 11 Tf 14 TL 72 660 Td\n${lines}\nET` };
}

export async function runSigningPage(): Promise<SigningPageReport> {
  const dist = ensureRendererBuilt();
  const assets = readdirSync(join(dist, 'assets'));
  const javascript = sizes(
    join(dist, 'assets'),
    assets.filter((f) => /\.m?js$/.test(f) && !f.startsWith('pdf.worker')),
  );
  const worker =
    sizes(
      join(dist, 'assets'),
      assets.filter((f) => f.startsWith('pdf.worker')),
    )[0] ?? null;
  const css = sizes(
    join(dist, 'assets'),
    assets.filter((f) => f.endsWith('.css')),
  );
  const bundleGzipKiB = javascript.reduce((n, a) => n + a.gzipBytes, 0) / 1024;
  const report: SigningPageReport = { ok: true, pages: PAGES, runs: [], javascript, worker, css, bundleGzipKiB };

  const server = await startTestServer('sqlite', { MOHAR_LOG_LEVEL: 'warn' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    const account = await server.newAccount();
    const draft = await makeDraft(server, account.key, {
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      pdf: makePdf({ pages: Array.from({ length: PAGES }, (_, i) => textPage(i + 1)) }),
      extraFields: (ids) =>
        Array.from({ length: PAGES }, (_, i) => ({
          recipient_id: ids[0],
          field_type: 8,
          page_number: i + 1,
          x: 72,
          y: 740,
          width: 220,
          height: 22,
          label: `Initials on page ${i + 1}`,
        })),
    });
    await sendDraft(server, account.key, draft);
    const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    if (session.statusCode !== 201) throw new Error(`signing session: ${session.statusCode} ${session.body}`);
    const url = `${origin}${new URL(session.json().signing_url).pathname}`;

    for (let run = 0; run <= RUNS; run++) {
      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0, undefined, {
        timeout: 60_000,
      });
      const marks = await page.evaluate(() => {
        const at = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
        // (The bench program has Node's types, where 'navigation' entries do not exist.)
        const navigation = (
          performance.getEntriesByType as unknown as (type: string) => { domContentLoadedEventEnd: number }[]
        )('navigation')[0]!;
        return {
          domContentLoadedMs: navigation.domContentLoadedEventEnd,
          viewLoadedMs: at('mohar:view-loaded'),
          pdfjsLoadedMs: at('mohar:pdfjs-loaded'),
          documentOpenedMs: at('mohar:document-opened'),
          firstPageMs: at('mohar:first-page'),
          interactiveMs: at('mohar:fields-interactive'),
        };
      });
      const fields = await page.locator('[data-field-id]').count();
      if (fields !== PAGES + 1) throw new Error(`expected ${PAGES + 1} field overlays, found ${fields}`);
      await context.close();
      if (run > 0) report.runs.push(marks); // run 0 warms the server's asset cache and Chromium
    }
    const keys = Object.keys(report.runs[0]!) as (keyof Marks)[];
    report.median = Object.fromEntries(
      keys.map((key) => [key, median(report.runs.map((r) => r[key]))]),
    ) as unknown as Marks;
  } catch (error) {
    report.ok = false;
    report.error = error instanceof Error ? error.message : String(error);
  } finally {
    await browser.close();
    await server.close();
  }
  return report;
}

export function printSigningPage(report: SigningPageReport): void {
  if (report.error) console.log(`ERROR: ${report.error}`);
  const verdict = (value: number, target: number) => (value <= target ? 'met' : 'MISSED');
  if (report.median) {
    const m = report.median;
    console.log(
      `\n${report.pages}-page PDF, headless Chromium 1280×900, fresh context per run; median of ${report.runs.length} (ms from navigation start)`,
    );
    const row = (label: string, key: keyof Marks, target?: number) => [
      label,
      fixed(m[key], 0),
      report.runs.map((r) => fixed(r[key], 0)).join(' '),
      target ? `<= ${target}` : '',
      target ? verdict(m[key], target) : '',
    ];
    console.log(
      table(
        ['measure', 'median', 'runs', 'target', ''],
        [
          row('DOM content loaded', 'domContentLoadedMs'),
          row('signer view loaded', 'viewLoadedMs'),
          row('pdf.js loaded', 'pdfjsLoadedMs'),
          row('document opened', 'documentOpenedMs'),
          row('first page drawn', 'firstPageMs', PAGE_TARGETS.firstPageMs),
          row('all fields interactive', 'interactiveMs', PAGE_TARGETS.interactiveMs),
        ],
      ),
    );
  }
  console.log('\nJavaScript of the page (gzip -9)');
  console.log(
    table(
      ['file', 'bytes', 'gzip KiB'],
      [
        ...report.javascript.map((a) => [a.file, String(a.bytes), fixed(a.gzipBytes / 1024, 1)]),
        [
          'page total',
          String(report.javascript.reduce((n, a) => n + a.bytes, 0)),
          `${fixed(report.bundleGzipKiB, 1)} (target <= ${PAGE_TARGETS.bundleGzipKiB}: ${verdict(report.bundleGzipKiB, PAGE_TARGETS.bundleGzipKiB)})`,
        ],
        ...(report.worker
          ? [
              [
                `${report.worker.file} (pdf.js worker, separate)`,
                String(report.worker.bytes),
                fixed(report.worker.gzipBytes / 1024, 1),
              ],
            ]
          : []),
        ...report.css.map((a) => [`${a.file} (CSS)`, String(a.bytes), fixed(a.gzipBytes / 1024, 1)]),
      ],
    ),
  );
}
