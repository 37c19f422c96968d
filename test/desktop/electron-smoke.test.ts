/**
 * Mohar Desktop end to end in a real Electron, driven by Playwright's Electron support: the app starts its
 * embedded server and opens the console; an envelope for a USB DSC signer is sent; its signing link reaches the
 * app as mohar://sign?url=… the way Linux and Windows deliver it (a second instance started with the link as its
 * argument, forwarded through the single-instance lock); the page lists the SoftHSM2 token; the PIN is typed
 * into the app's own PIN window, never the page; the envelope completes and pdfsig accepts the signature.
 *
 * Runs in the workflow's smoke job (.github/workflows/desktop.yml: Ubuntu, xvfb-run, SoftHSM2, poppler-utils,
 * native modules rebuilt for Electron, MOHAR_TEST_ELECTRON=required). Elsewhere it is skipped, with the reason,
 * when a prerequisite is missing (prerequisites.ts): here there is no Electron binary.
 * Screenshots: test-results/desktop/.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { createDscTrust, type DscTrust } from '../support/dsc-trust.js';
import { logInToConsole } from '../support/console.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';
import { completedDocument, officeAs, sendDscEnvelope } from './office.js';
import { desktopPrerequisites, ROOT } from './prerequisites.js';

const required = process.env.MOHAR_TEST_ELECTRON === 'required';
const prerequisites = desktopPrerequisites();
/** Why the test does not run here (false: it runs); when it is required, the failing test below says why instead. */
const skip =
  prerequisites.missing.length === 0
    ? false
    : required
      ? 'prerequisites missing (see the failing test)'
      : prerequisites.missing.join('; ');

const ADMIN = { email: 'admin@desktop.test', password: 'correct horse battery staple' };
const SIGNER = { name: 'Asha Rao', email: 'asha@example.com' };
const MAIN_JS = join(ROOT, 'dist', 'main', 'electron', 'main.js');
const SHOTS = join(ROOT, 'test-results', 'desktop');
const PIN_PAGE = /\/pin-window\/pin\.html$/;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The window of the app whose page matches, as soon as it exists (Playwright sees every BrowserWindow). */
async function windowMatching(app: ElectronApplication, url: RegExp, timeoutMs = 60_000): Promise<Page> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = app.windows().find((page) => url.test(page.url()));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Main's own list too: it tells "never opened" apart from "opened, but not visible to Playwright".
  const inMain = await app
    .evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().map((win) => win.webContents.getURL()))
    .catch((error: unknown) => [`(main did not answer: ${String(error)})`]);
  const seen = app.windows().map((page) => page.url());
  throw new Error(
    `no window at ${url} after ${timeoutMs} ms; Playwright sees ${seen.join(', ')}; main has ${inMain.join(', ')}`,
  );
}

/** What the OS does with a mohar: link on Linux: start the app again with the link; that instance hands it over. */
function secondInstance(electronPath: string, env: Record<string, string>, link: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(electronPath, ['--no-sandbox', MAIN_JS, link], { cwd: ROOT, env, stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the second instance did not hand the link over and quit within 30 s'));
    }, 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let scratch: string | undefined;
let trust: DscTrust | undefined;
let hsm: SoftHsm | undefined;
let app: ElectronApplication | undefined;
after(async () => {
  await app?.close().catch(() => undefined);
  hsm?.cleanup();
  await trust?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

if (required && prerequisites.missing.length > 0) {
  test('Mohar Desktop in Electron: prerequisites (MOHAR_TEST_ELECTRON=required)', () => {
    assert.fail(`the smoke test must run here, but: ${prerequisites.missing.join('; ')}`);
  });
}

// A test (not a describe) carries the skip, so the runner counts it as skipped, with the reason.
test(
  'Mohar Desktop in Electron: console, mohar:// link, token listed, PIN in the PIN window, pdfsig accepts the signature',
  { skip },
  async (t) => {
    scratch = mkdtempSync(join(tmpdir(), 'mohar-desktop-'));
    mkdirSync(SHOTS, { recursive: true });
    const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
    // The main process, the preloads and the PIN window's files, compiled as `npm run desktop:start` does.
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-desktop.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, `npm run desktop:build: ${build.stdout}${build.stderr}`);

    // A token whose certificates are the signer's and chain to a trusted test root with a live OCSP responder.
    trust = await createDscTrust(join(scratch, 'anchors.pem'));
    hsm = createSoftHsm({ pki: trust.pki, keys: trust.tokenKeys({ commonName: SIGNER.name, email: SIGNER.email }) });
    trust.registerToken(hsm);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const home = join(scratch, 'home');
    mkdirSync(home);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      DISPLAY: process.env.DISPLAY ?? '',
      ...(process.env.XAUTHORITY ? { XAUTHORITY: process.env.XAUTHORITY } : {}),
      // Electron's userData (the single-instance lock lives there) and the protocol registration: a fresh home.
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      // Settings of docs/configuration.md, nothing test-only: the token module, the server's place and port.
      SOFTHSM2_CONF: hsm.confPath,
      MOHAR_PKCS11_MODULES: hsm.modulePath,
      MOHAR_DATA_DIR: join(scratch, 'server'),
      MOHAR_HOST: '127.0.0.1',
      MOHAR_PORT: String(port),
      MOHAR_BASE_URL: origin,
      MOHAR_ADMIN_EMAIL: ADMIN.email,
      MOHAR_ADMIN_PASSWORD: ADMIN.password,
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_DSC_TRUST_ANCHORS: trust.anchorsPath,
      MOHAR_FETCH_ALLOW_PRIVATE: '1',
    };

    // Playwright starts the Electron of node_modules/electron itself (with its loader, which holds the app's
    // ready event until Playwright is attached, so the first window is not missed).
    app = await _electron.launch({ args: [MAIN_JS], cwd: ROOT, env, timeout: 90_000 });
    app.process().stderr?.on('data', (chunk: Buffer) => t.diagnostic(`app: ${chunk.toString().trimEnd()}`));

    // 1. The embedded server answers and the first window is its console.
    const consolePage = await windowMatching(app, new RegExp(`^${escapeRegExp(origin)}/app`));
    await logInToConsole(consolePage, origin, ADMIN);
    await shot(consolePage, '01-console');

    // 2. An envelope for the token's holder; its signing link arrives as mohar://.
    const office = await officeAs(origin, ADMIN.email, ADMIN.password);
    const envelope = await sendDscEnvelope(office, SIGNER, makePdf({ pages: 1 }));
    assert.ok(envelope.signingUrl.startsWith(`${origin}/sign/`), envelope.signingUrl);
    const link = `mohar://sign?url=${encodeURIComponent(envelope.signingUrl)}`;
    assert.equal(await secondInstance(prerequisites.electronPath!, env, link), 0, 'the second instance quits');
    const signing = await windowMatching(app, new RegExp(`^${escapeRegExp(origin)}/sign/`));
    assert.equal(signing.url(), envelope.signingUrl, 'the window shows the linked signing page');

    // 3. The page lists the token and its certificate, through the bridge.
    await signing
      .getByText(new RegExp(`^${escapeRegExp(hsm.tokenLabel)}: `))
      .first()
      .waitFor();
    const certificate = signing.getByRole('radio', { name: /Asha Rao/ });
    await certificate.check();
    await signing.getByRole('checkbox', { name: /digital signature certificate on my USB token/ }).check();
    await shot(signing, '02-token-listed');
    await signing.getByRole('button', { name: 'Sign with USB token' }).click();

    // 4. The PIN window, the app's own page, says what is signed and takes the PIN; the web page has no PIN field.
    const pinWindow = await windowMatching(app, PIN_PAGE);
    await pinWindow.locator('#token').filter({ hasText: hsm.tokenLabel }).waitFor();
    assert.equal(await pinWindow.locator('#document-name').textContent(), 'test.pdf');
    assert.match((await pinWindow.locator('#certificate-subject').textContent()) ?? '', /Asha Rao/);
    assert.equal(await signing.locator('input[type=password]').count(), 0, 'no PIN field in the web page');
    await pinWindow.locator('#pin').fill(hsm.pin);
    await shot(pinWindow, '03-pin-window');
    await pinWindow.locator('#sign').click();

    // 5. Signed: the envelope completes and pdfsig judges every signature valid, the token's among them.
    await signing.getByRole('heading', { name: 'You have signed' }).waitFor({ timeout: 60_000 });
    await shot(signing, '04-signed');
    const pdf = await completedDocument(office, envelope);
    const verdicts = pdfsigVerdicts(pdf);
    assert.ok(verdicts.valid.length >= 1 && verdicts.valid.every(Boolean), verdicts.output);
    assert.match(verdicts.output, /Signer full Distinguished Name: .*CN=Asha Rao/, verdicts.output);
  },
);
