/**
 * End to end in Chromium against the offline ESP simulator (issue 18): a sequential envelope electronic →
 * Aadhaar eSign → USB DSC (SoftHSM, through the desktop bridge as in dsc-signing.test.ts) completes; a failed
 * Aadhaar attempt (wrong OTP) comes back to the signing page with the reason and leaves the envelope as it
 * was, and the retry signs. The completed PDF passes pdfsig, qpdf and our verifier. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignPreparedRequest } from '../../common/desktop-bridge.js';
import { createDesktopSigner, type DesktopSigner } from '../../main/signer/index.js';
import { verifyPdf } from '../../pdf/verify/index.js';
import { scriptedPrompt } from '../support/pin-prompt.js';
import { checkPhoneWidth, collectPageErrors, launchChromium, newContext, screenshots } from '../support/browser.js';
import { DATABASES } from '../support/databases.js';
import { useDscTrust } from '../support/dsc-trust.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { startTestEsp, TEST_AADHAAR, type TestEsp } from '../support/esp.js';
import { qpdfCheck } from '../support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureRendererBuilt();
let browser: Browser;
let hsm: SoftHsm;
let signer: DesktopSigner;
let esp: TestEsp;
const prompt = scriptedPrompt();
const trust = useDscTrust();

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys() });
  pki.registerToken(hsm);
  signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt });
  esp = await startTestEsp();
  // One anchors file: the DSC test root and the simulator's CCA-like root.
  writeFileSync(
    trust.env.MOHAR_DSC_TRUST_ANCHORS!,
    `${readFileSync(trust.env.MOHAR_DSC_TRUST_ANCHORS!, 'latin1')}\n${esp.trustAnchorPem}`,
  );
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await signer?.close();
  await esp?.close();
  hsm?.cleanup();
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function withDesktopBridge(context: BrowserContext): Promise<void> {
  await context.exposeFunction('__moharListTokens', () => signer.listTokens());
  await context.exposeFunction('__moharSignPrepared', (request: SignPreparedRequest) => signer.signPrepared(request));
  await context.addInitScript({
    content: `(() => {
      window.moharDesktop = Object.freeze({
        version: 1,
        listTokens: () => window.__moharListTokens(),
        signPrepared: (request) => window.__moharSignPrepared(request),
        watchTokens() { return () => undefined; },
      });
    })();`,
  });
}

/** The simulator's consent + OTP page, filled as the signer would. */
async function atTheEsp(page: Page, name: string, aadhaar: string = TEST_AADHAAR.success): Promise<void> {
  await page.getByLabel('Aadhaar number').waitFor();
  await page.getByLabel('Aadhaar number').fill(aadhaar);
  await page.getByLabel(/Name as in Aadhaar/).fill(name);
  await page.getByLabel('OTP').fill('123456');
  await page.getByLabel(/I consent/).check();
}

for (const kind of DATABASES) {
  describe(`electronic → Aadhaar eSign → USB DSC in Chromium on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let origin: string;
    before(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      server = await startTestServer(kind, { ...trust.env, ...esp.env, MOHAR_BASE_URL: origin });
      account = await server.newAccount();
      await server.app.listen({ host: '127.0.0.1', port });
    });
    after(() => server?.close());

    test('the three signers sign in turn; a wrong OTP is explained and changes nothing; the PDF validates', async () => {
      const shots = screenshots(`aadhaar-${kind}`);
      const draft = await makeDraft(server, account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Meera Iyer', email: 'meera@example.com', signature_method: 'aadhaar' },
          { name: 'Asha Rao', email: 'asha.dsc@example.com', signature_method: 'dsc' },
        ],
        extraFields: (ids) => [
          {
            recipient_id: ids[1],
            field_type: 8,
            page_number: 2,
            x: 72,
            y: 120,
            width: 240,
            height: 22,
            label: 'Address',
          },
        ],
      });
      await sendDraft(server, account.key, draft);
      const link = async (recipientId: string) => {
        const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        });
        assert.equal(session.statusCode, 201, session.body);
        return session.json().signing_url as string;
      };
      const state = async () =>
        JSON.stringify(
          await server.ctx.db
            .selectFrom('envelope_documents')
            .select('current_sha256')
            .where('envelope_id', '=', draft.id)
            .execute(),
        );

      // 1. Electronic, typed.
      const context1 = await newContext(browser, { viewport: { width: 1100, height: 900 } });
      const page1 = await context1.newPage();
      await page1.goto(await link(draft.recipientIds[0]!));
      await page1.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
      const dialog = page1.getByRole('dialog', { name: 'Your signature' });
      await dialog.getByRole('tab', { name: 'Type' }).click();
      await dialog.getByRole('button', { name: 'Use this signature' }).click();
      await page1.getByRole('checkbox', { name: /I agree to sign this document electronically/ }).check();
      await page1.getByRole('button', { name: 'Sign', exact: true }).click();
      await page1.getByRole('heading', { name: 'You have signed' }).waitFor();
      await context1.close();

      // 2. Aadhaar eSign: a wrong OTP first, then the right one.
      const context2 = await newContext(browser, { viewport: { width: 1100, height: 900 } });
      const page2 = await context2.newPage();
      const errors2 = collectPageErrors(page2);
      const url2 = await link(draft.recipientIds[1]!);
      await page2.goto(url2);
      await page2.getByRole('heading', { name: 'Sign with Aadhaar eSign' }).waitFor();
      await page2.getByRole('note', { name: 'Signed with Aadhaar eSign' }).waitFor();
      await page2.getByLabel('Address (required)').fill('7 Residency Road, Bengaluru');
      await page2.getByRole('checkbox', { name: /sign this document with Aadhaar eSign/ }).check();
      await shots.take(page2, 'aadhaar-ready');
      await checkPhoneWidth(page2, shots, 'aadhaar-ready', [page2.getByRole('button', { name: 'Sign with Aadhaar' })]);
      const before = await state();
      await page2.getByRole('button', { name: 'Sign with Aadhaar' }).click();
      await atTheEsp(page2, 'Meera Iyer', TEST_AADHAAR.wrongOtp);
      await shots.take(page2, 'esp-otp-page');
      await checkPhoneWidth(page2, shots, 'esp-otp-page', [
        page2.getByLabel('OTP'),
        page2.getByRole('button', { name: 'Sign', exact: true }),
      ]);
      await page2.getByRole('button', { name: 'Sign', exact: true }).click();
      const failure = page2.locator('.aadhaar-failure');
      await failure.waitFor();
      assert.match((await failure.textContent()) ?? '', /The OTP was wrong\..*Nothing was signed/);
      assert.equal(await failure.getAttribute('data-reason'), 'otp_wrong');
      await shots.take(page2, 'aadhaar-wrong-otp');
      await checkPhoneWidth(page2, shots, 'aadhaar-wrong-otp', [
        failure,
        page2.getByRole('button', { name: 'Try again with Aadhaar' }),
      ]);
      assert.equal(await state(), before, 'the failed attempt changed nothing');
      // Hindi too.
      await page2
        .getByRole('combobox', { name: /Language|भाषा/ })
        .selectOption('hi')
        .catch(() => undefined);
      await shots.take(page2, 'aadhaar-wrong-otp-hi');
      await page2
        .getByRole('combobox', { name: /Language|भाषा/ })
        .selectOption('en')
        .catch(() => undefined);

      assert.equal(
        await page2.getByLabel('Address (required)').inputValue(),
        '7 Residency Road, Bengaluru',
        'what the signer typed is kept across the round trip',
      );
      await page2.getByRole('checkbox', { name: /sign this document with Aadhaar eSign/ }).check();
      await page2.getByRole('button', { name: 'Try again with Aadhaar' }).click();
      await atTheEsp(page2, 'Meera Iyer');
      await page2.getByRole('button', { name: 'Sign', exact: true }).click();
      await page2.getByRole('heading', { name: 'Signed with Aadhaar eSign' }).waitFor();
      await shots.take(page2, 'aadhaar-signed');
      await checkPhoneWidth(page2, shots, 'aadhaar-signed', [
        page2.getByRole('heading', { name: 'Signed with Aadhaar eSign' }),
      ]);
      // Back from the ESP the link is used: the signer view answers 410 (signing_link_used), which the page shows as
      // done.
      assert.deepEqual(
        errors2.filter((e) => !/status of 410/.test(e)),
        [],
        'no other console errors (CSP violations included)',
      );
      await context2.close();

      // 3. USB DSC through the desktop bridge.
      const context3 = await newContext(browser, { viewport: { width: 1100, height: 900 } });
      await withDesktopBridge(context3);
      const page3 = await context3.newPage();
      await page3.goto(await link(draft.recipientIds[2]!));
      const certificate = page3.getByRole('radio', { name: /Asha Rao/ });
      await certificate.waitFor();
      await certificate.check();
      await page3.getByRole('checkbox', { name: /digital signature certificate on my USB token/ }).check();
      prompt.answer(hsm.pin);
      await page3.getByRole('button', { name: 'Sign with USB token' }).click();
      await page3.getByRole('heading', { name: 'You have signed' }).waitFor();
      await shots.take(page3, 'dsc-signed');
      const downloading = page3.waitForEvent('download');
      await page3.getByRole('link', { name: /^Download / }).click();
      const pdf = readFileSync((await (await downloading).path())!);
      await context3.close();

      const envelope = (await server.request('GET', `${API}/envelopes/${draft.id}`, { key: account.key })).json();
      assert.equal(envelope.status, 'completed');
      assert.ok(qpdfCheck(pdf).ok);
      const verdicts = pdfsigVerdicts(pdf);
      assert.ok(verdicts.valid.length >= 4 && verdicts.valid.every(Boolean), verdicts.output);
      assert.match(verdicts.output, /CN=Meera Iyer/, 'the Aadhaar eSign certificate names the signer');
      const report = verifyPdf(pdf);
      assert.ok(
        report.signatures.every((s) => s.valid),
        report.signatures.map((s) => `${s.field}: ${s.problems.join('; ')}`).join('\n'),
      );
      writeFileSync(join(shots.dir, 'completed.pdf'), pdf);
    });
  });
}
