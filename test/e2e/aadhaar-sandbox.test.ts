// Aadhaar eSign in the sandbox, in Chromium: a server with no MOHAR_ESIGN_* at all; a test envelope's Aadhaar
// signer presses "Sign with Aadhaar", lands on the ESP simulator built into the same server
// (/sandbox/esp/esign/2.1, same origin), gives consent, Aadhaar number, name and OTP, and comes back signed;
// no console error or CSP violation on the way. SQLite and PostgreSQL. Screenshots in
// test-results/e2e/aadhaar-sandbox-*.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { verifyPdf } from '../../pdf/verify/index.js';
import { collectPageErrors, launchChromium, newContext, screenshots } from '../support/browser.js';
import { DATABASES } from '../support/databases.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { TEST_AADHAAR } from '../support/esp.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../support/server.js';

ensureRendererBuilt();
let browser: Browser;

before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

for (const kind of DATABASES) {
  describe(`Aadhaar eSign sandbox in Chromium on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount & { testKey?: string };
    let origin: string;
    before(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      server = await startTestServer(kind, { MOHAR_BASE_URL: origin });
      account = await server.newAccount({ testMode: true });
      await server.app.listen({ host: '127.0.0.1', port });
    });
    after(() => server?.close());

    test("a test envelope's Aadhaar signer signs at the built-in ESP simulator and comes back signed", async () => {
      const key = account.testKey!;
      const shots = screenshots(`aadhaar-sandbox-${kind}`);
      const draft = await makeDraft(server, key, {
        recipients: [{ name: 'Meera Iyer', email: 'meera@example.com', signature_method: 'aadhaar' }],
      });
      await sendDraft(server, key, draft);
      const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(session.statusCode, 201, session.body);

      const context = await newContext(browser, { viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(session.json().signing_url as string);
      await page.getByRole('heading', { name: 'Sign with Aadhaar eSign' }).waitFor();
      await page.getByRole('checkbox', { name: /sign this document with Aadhaar eSign/ }).check();
      await page.getByRole('button', { name: 'Sign with Aadhaar' }).click();

      await page.getByLabel('Aadhaar number').waitFor();
      assert.equal(new URL(page.url()).origin, origin, "the ESP simulator is on the server's own origin");
      assert.equal(new URL(page.url()).pathname, '/sandbox/esp/esign/2.1/signdoc');
      await page.getByLabel('Aadhaar number').fill(TEST_AADHAAR.success);
      await page.getByLabel(/Name as in Aadhaar/).fill('Meera Iyer');
      await page.getByLabel('OTP').fill('123456');
      await page.getByLabel(/I consent/).check();
      await shots.take(page, 'esp-otp-page');
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      await page.getByRole('heading', { name: 'Signed with Aadhaar eSign' }).waitFor();
      await shots.take(page, 'signed');
      // Back from the ESP the link is used: the signer view answers 410 (signing_link_used), which the page shows as
      // done.
      assert.deepEqual(
        errors.filter((e) => !/status of 410/.test(e)),
        [],
        'no other console errors (CSP violations included)',
      );
      await context.close();

      const signer = await server.ctx.db
        .selectFrom('recipients')
        .select(['status', 'act_details'])
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.equal(signer.status, 'signed');
      assert.equal(JSON.parse(signer.act_details!).esp.url, `${origin}/sandbox/esp/esign/2.1/signdoc`);
      const revision = await server.ctx.db
        .selectFrom('document_revisions')
        .select('sha256')
        .where('envelope_id', '=', draft.id)
        .where('act', '=', 'signed')
        .executeTakeFirstOrThrow();
      const report = verifyPdf(await server.ctx.blobs.get(revision.sha256));
      const esign = report.signatures.find((s) => s.signer?.subject.includes('Meera Iyer'));
      assert.ok(
        esign && esign.digestValid && esign.signatureValid,
        'the simulated eSign signature is in the PDF and verifies',
      );
    });
  });
}
