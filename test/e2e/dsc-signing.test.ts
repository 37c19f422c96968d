/**
 * End to end in Chromium: a USB DSC signer. The page runs as inside Mohar Desktop: the test exposes the real
 * desktop signer service (main/signer, over a SoftHSM2 token) as window.moharDesktop through exposeFunction,
 * the way the preload exposes it through contextBridge, with a test PinPrompt in place of the PIN window.
 * Without the bridge the page offers the mohar:// link. A wrong PIN shows a clear message and signs nothing;
 * the right one signs, and pdfsig shows the token certificate's subject on a valid signature. A certificate of
 * another person is refused, and the page says so in words (English and Hindi).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import type { SignPreparedRequest } from '../../common/desktop-bridge.js';
import { createDesktopSigner, type DesktopSigner } from '../../main/signer/index.js';
import { scriptedPrompt } from '../support/pin-prompt.js';
import {
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
} from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { qpdfCheck } from '../support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';
import { useDscTrust } from '../support/dsc-trust.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureRendererBuilt();
let browser: Browser;
let hsm: SoftHsm;
let signer: DesktopSigner;
const prompt = scriptedPrompt();

// The token's certificates chain to a configured test anchor and have a good OCSP answer (DSC trust).
const trust = useDscTrust();

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys() }); // before any PKCS#11 module is loaded in this process
  pki.registerToken(hsm);
  signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await signer?.close();
  hsm?.cleanup();
});

/** What the desktop's preload does with contextBridge, done with Playwright: window.moharDesktop over the service. */
async function withDesktopBridge(context: BrowserContext): Promise<() => void> {
  await context.exposeFunction('__moharListTokens', () => signer.listTokens());
  await context.exposeFunction('__moharSignPrepared', (request: SignPreparedRequest) => signer.signPrepared(request));
  await context.addInitScript({
    content: `(() => {
      const listeners = new Set();
      window.__moharTokensChanged = (tokens) => { for (const listener of listeners) listener(tokens); };
      window.moharDesktop = Object.freeze({
        version: 1,
        listTokens: () => window.__moharListTokens(),
        signPrepared: (request) => window.__moharSignPrepared(request),
        watchTokens(listener) { listeners.add(listener); return () => listeners.delete(listener); },
      });
    })();`,
  });
  return signer.watchTokens((tokens) => {
    for (const page of context.pages()) {
      void page
        .evaluate(
          (list) => (globalThis as unknown as { __moharTokensChanged(t: unknown): void }).__moharTokensChanged(list),
          tokens,
        )
        .catch(() => undefined);
    }
  });
}

describe('a USB DSC signer in Chromium with the desktop bridge', () => {
  const t = useTestServer('sqlite', trust.env);
  const shots = screenshots('dsc');
  let origin: string;
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });

  /** The envelope is still out, its one recipient has only viewed it, and no signed revision exists. */
  async function nothingSigned(envelopeId: string) {
    const status = (
      await t.server.request('GET', `${API}/envelopes/${envelopeId}/status`, { key: t.account.key })
    ).json();
    assert.equal(status.status, 'sent');
    assert.deepEqual(
      status.recipients.map((r: { status: string }) => r.status),
      ['viewed'],
      'nothing was signed',
    );
    const revisions = await t.server.ctx.db
      .selectFrom('document_revisions')
      .select('act')
      .where('envelope_id', '=', envelopeId)
      .execute();
    assert.ok(!revisions.some((r) => r.act === 'signed'), 'no signed revision');
  }

  test('no bridge: the mohar:// link; with it: token and certificate shown, wrong PIN signs nothing, right PIN signs', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: 'dsc' }],
      extraFields: (ids) => [
        {
          recipient_id: ids[0],
          field_type: 8,
          page_number: 1,
          x: 300,
          y: 60,
          width: 200,
          height: 22,
          label: 'Designation',
        },
      ],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    const url = onServer(origin, session.json().signing_url);

    // In a plain browser: explain, and link to Mohar Desktop.
    const plain = await newContext(browser, { viewport: { width: 1100, height: 900 } });
    const browserPage = await plain.newPage();
    await browserPage.goto(url);
    const open = browserPage.getByRole('link', { name: 'Open in Mohar Desktop' });
    assert.equal(await open.getAttribute('href'), `mohar://sign?url=${encodeURIComponent(url)}`);
    await shots.take(browserPage, 'no-bridge');
    await plain.close();

    // Inside "Mohar Desktop".
    const context = await newContext(browser, { viewport: { width: 1100, height: 900 } });
    const stopWatching = await withDesktopBridge(context);
    try {
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(url);
      const rsa = hsm.keys.find((k) => k.type === 'RSA')!;
      const certificate = page.getByRole('radio', { name: /Asha Rao/ });
      await certificate.waitFor();
      const details = (await page.locator('label.certificate', { has: certificate }).textContent()) ?? '';
      assert.match(details, /Issued by .*CN=/, 'the issuer is shown');
      assert.match(details, /Valid from .* to /, 'the validity is shown');
      assert.match(details, /Class 2 certificate/, 'the CCA class is shown');
      assert.ok(rsa.certificate, 'the RSA key has a certificate');
      await page.getByRole('note', { name: 'Signed with your USB token' }).waitFor();
      await page.getByLabel('Designation (required)').fill('Director');
      await certificate.check();
      await page.getByRole('checkbox', { name: /digital signature certificate on my USB token/ }).check();
      await shots.take(page, 'token-listed');

      prompt.answer('000000');
      await page.getByRole('button', { name: 'Sign with USB token' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Wrong PIN' });
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /^Wrong PIN\. Nothing was signed\./);
      await shots.take(page, 'wrong-pin');
      assert.equal(prompt.requests.at(-1)!.documentName, 'test.pdf', 'the PIN window names the document');
      await nothingSigned(draft.id);

      prompt.answer(hsm.pin);
      await page.getByRole('button', { name: 'Sign with USB token' }).click();
      await page.getByRole('heading', { name: 'You have signed' }).waitFor();
      await shots.take(page, 'signed');
      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: /^Download / }).click();
      const pdf = readFileSync((await (await downloading).path())!);
      assert.deepEqual(errors, []);

      assert.ok(qpdfCheck(pdf).ok);
      const verdicts = pdfsigVerdicts(pdf);
      assert.deepEqual(
        verdicts.valid,
        [true, true, true],
        `the token's signature, the certification at send and the completion lock: ${verdicts.output}`,
      );
      assert.match(
        verdicts.output,
        /Signer full Distinguished Name: .*CN=Asha Rao/,
        'pdfsig shows the token certificate subject',
      );
      const envelope = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.equal(envelope.status, 'completed');
      assert.equal(
        envelope.documents[0].fields.find((f: { label: string | null }) => f.label === 'Designation').value,
        'Director',
        'the value typed in the page was recorded',
      );
      assert.match(
        pdf.toString('latin1'),
        /\/V\s*\(Director\)/,
        'and went into the prepared document the token signed',
      );
    } finally {
      stopWatching();
      await context.close();
    }
  });

  test("another person's certificate: the page says whose it is and for whom the document is, in English and Hindi", async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Meera K Iyer', email: 'meera@example.com', signature_method: 'dsc' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    const context = await newContext(browser, { viewport: { width: 1100, height: 900 } });
    const stopWatching = await withDesktopBridge(context);
    try {
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(onServer(origin, session.json().signing_url));
      // The token holds Asha Rao's and Ravi Kumar's certificates, not Meera's.
      await page.getByRole('radio', { name: /Asha Rao/ }).check();
      await page.getByRole('checkbox', { name: /digital signature certificate on my USB token/ }).check();
      prompt.answer(hsm.pin);
      await page.getByRole('button', { name: 'Sign with USB token' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'This certificate belongs to' });
      await alert.waitFor();
      assert.equal(
        await alert.textContent(),
        'This certificate belongs to Asha Rao <asha@example.com>, but this document is for Meera K Iyer. ' +
          'Nothing was signed. Sign with Meera K Iyer’s own DSC, or ask the sender.',
      );
      await shots.take(page, 'identity-refused');

      await page.getByRole('combobox', { name: /Language|भाषा/ }).selectOption('hi');
      const hindi = page.getByRole('alert').filter({ hasText: 'यह प्रमाणपत्र' });
      await hindi.waitFor();
      assert.match(
        (await hindi.textContent()) ?? '',
        /^यह प्रमाणपत्र Asha Rao <asha@example\.com> का है, लेकिन यह दस्तावेज़ Meera K Iyer के लिए है।/,
      );
      await shots.take(page, 'identity-refused-hi');
      await page.getByRole('combobox', { name: /Language|भाषा/ }).selectOption('en');
      // The browser logs the refused upload itself (a 422 response); nothing else went wrong.
      assert.deepEqual(
        errors.filter((e) => !/status of 422/.test(e)),
        [],
      );
      await nothingSigned(draft.id);
    } finally {
      stopWatching();
      await context.close();
    }
  });
});
