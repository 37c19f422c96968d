/**
 * Office console benchmark (`npm run bench -- console`): how fast /app shows a logged-in user their envelope
 * list in headless Chromium, and how much JavaScript the console ships.
 *
 * The production build (renderer/dist-console, rebuilt when older than its sources) is served by the real app
 * on 127.0.0.1 (SQLite) with 300 envelopes in the account. A user logs in once; each run opens /app/envelopes
 * in a fresh browser context (empty HTTP cache) that carries only the login's refresh cookie, as a returning
 * user's browser does, and measures from navigation start until the first envelope row is on screen (the
 * page has traded the cookie for a token and loaded the first page of the list). Also: the login page for a
 * visitor without a session. One warm-up run, then the median of 5.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM, newContext } from '../test/support/browser.js';
import { ensureConsoleBuilt } from '../test/support/renderer.js';
import { API, startTestServer, type TestServer } from '../test/support/server.js';
import { fixed, median, table } from './support.js';

export const CONSOLE_TARGETS = { firstRenderMs: 1000 } as const;

const RUNS = 5;
const ENVELOPES = 300;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** The first envelope row: a link to an envelope's detail page (not "New envelope"). */
const FIRST_ROW = 'main a[href^="/app/envelopes/"]:not([href$="/new"])';

export interface ConsoleReport {
  ok: boolean;
  error?: string;
  envelopes: number;
  listRuns: number[];
  loginRuns: number[];
  listMedianMs?: number;
  loginMedianMs?: number;
  javascriptGzipKiB: number;
}

async function seed(server: TestServer, key: string): Promise<void> {
  for (let i = 0; i < ENVELOPES; i++) {
    const response = await server.request('POST', `${API}/envelopes`, {
      key,
      json: {
        title: `Lease ${i + 1}`,
        external_id: `lease-${i + 1}`,
        recipients: [{ name: `Tenant ${i + 1}`, email: `tenant${i + 1}@example.com` }],
      },
    });
    if (response.statusCode !== 201) throw new Error(`seeding: ${response.statusCode} ${response.body}`);
  }
}

/**
 * Milliseconds from navigation start until `selector` is in the page, read in the page (one animation frame of
 * resolution).
 */
async function timeTo(context: BrowserContext, url: string, selector: string): Promise<number> {
  const page = await context.newPage();
  await page.goto(url);
  // (The bench program has Node's types: no DOM lib, so the page's document is reached through globalThis.)
  const handle = await page.waitForFunction(
    (s) =>
      (globalThis as unknown as { document: { querySelector(q: string): unknown } }).document.querySelector(s)
        ? performance.now()
        : null,
    selector,
    { polling: 'raf', timeout: 30_000 },
  );
  return (await handle.jsonValue()) as number;
}

async function measure(
  browser: Browser,
  origin: string,
  account: { email: string; password: string },
  report: ConsoleReport,
): Promise<void> {
  const login = await newContext(browser, { viewport: { width: 1280, height: 900 } });
  const page = await login.newPage();
  await page.goto(`${origin}/app/`);
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForSelector(FIRST_ROW);
  for (let run = 0; run <= RUNS; run++) {
    // The refresh cookie rotates on every use: carry the newest one into each fresh (cache-less) context.
    const state = await login.storageState();
    const context = await newContext(browser, { viewport: { width: 1280, height: 900 }, storageState: state });
    const ms = await timeTo(context, `${origin}/app/envelopes`, FIRST_ROW);
    await login.addCookies((await context.cookies()).filter((c) => c.name === 'mohar_console'));
    await context.close();
    const visitor = await newContext(browser, { viewport: { width: 1280, height: 900 } });
    const loginMs = await timeTo(visitor, `${origin}/app/`, '#login-email');
    await visitor.close();
    if (run > 0) {
      report.listRuns.push(ms);
      report.loginRuns.push(loginMs);
    }
  }
  await login.close();
}

export async function runConsole(): Promise<ConsoleReport> {
  const dist = ensureConsoleBuilt();
  const scripts = readdirSync(join(dist, 'assets')).filter((f) => /\.m?js$/.test(f) && !f.startsWith('pdf.worker'));
  const javascriptGzipKiB =
    scripts.reduce((n, f) => n + gzipSync(readFileSync(join(dist, 'assets', f)), { level: 9 }).length, 0) / 1024;
  const report: ConsoleReport = { ok: true, envelopes: ENVELOPES, listRuns: [], loginRuns: [], javascriptGzipKiB };
  const server = await startTestServer('sqlite', { MOHAR_LOG_LEVEL: 'warn' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    const account = await server.newAccount();
    await seed(server, account.key);
    await measure(browser, origin, account, report);
    report.listMedianMs = median(report.listRuns);
    report.loginMedianMs = median(report.loginRuns);
  } catch (error) {
    report.ok = false;
    report.error = error instanceof Error ? error.message : String(error);
  } finally {
    await browser.close();
    await server.close();
  }
  return report;
}

export function printConsole(report: ConsoleReport): void {
  if (report.error) console.log(`ERROR: ${report.error}`);
  const verdict = (value: number) => (value <= CONSOLE_TARGETS.firstRenderMs ? 'met' : 'MISSED');
  if (report.listMedianMs !== undefined && report.loginMedianMs !== undefined) {
    console.log(
      `\n/app in headless Chromium 1280×900, fresh HTTP cache per run, ${report.envelopes} envelopes; median of ${report.listRuns.length} (ms from navigation start)`,
    );
    console.log(
      table(
        ['measure', 'median', 'runs', 'target', ''],
        [
          [
            'envelope list shown (returning user)',
            fixed(report.listMedianMs),
            report.listRuns.map((r) => fixed(r)).join(' '),
            `<= ${CONSOLE_TARGETS.firstRenderMs}`,
            verdict(report.listMedianMs),
          ],
          [
            'login form shown (visitor)',
            fixed(report.loginMedianMs),
            report.loginRuns.map((r) => fixed(r)).join(' '),
            '',
            '',
          ],
        ],
      ),
    );
  }
  console.log(`console JavaScript (gzip -9, without the pdf.js worker): ${fixed(report.javascriptGzipKiB, 1)} KiB`);
}
