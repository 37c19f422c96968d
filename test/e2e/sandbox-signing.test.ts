/**
 * End to end in Chromium: a sandbox mock DSC request's link offers "Sign with a test certificate" (no token,
 * no desktop), says the signature has no legal value, and signs; pdfsig finds an intact signature by the
 * self-signed test certificate in the downloaded PDF.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { collectPageErrors, launchChromium, listenOnLoopback, onServer, screenshots } from '../support/browser.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, multipartBody, useTestServer } from '../support/server.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe('sandbox mock DSC in Chromium', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('sandbox');

  test('the link signs with a test certificate; the PDF carries an intact self-signed signature', async () => {
    const origin = await listenOnLoopback(t.server);
    const { testKey } = await t.server.newAccount({ testMode: true });
    const form = multipartBody([
      { field: 'file', filename: 'nda.pdf', bytes: makePdf({ pages: 1 }) },
      { field: 'signer_name', bytes: Buffer.from('Meera Iyer') },
      { field: 'signer_email', bytes: Buffer.from('meera@example.com') },
    ]);
    const created = await t.server.app.inject({
      method: 'POST',
      url: `${API}/sandbox/mock-dsc/requests`,
      headers: { 'x-api-key': testKey!, 'content-type': form.contentType },
      payload: form.body,
    });
    assert.equal(created.statusCode, 201, created.body);
    const request = created.json();

    const page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
    const errors = collectPageErrors(page);
    await page.goto(onServer(origin, request.signing_url));
    await page.getByRole('heading', { name: 'Sandbox: mock USB DSC signature' }).waitFor();
    await page.getByText(/not a legally trusted digital signature certificate/).waitFor();
    await shots.take(page, 'offered');
    const sign = page.getByRole('button', { name: 'Sign with a test certificate' });
    await sign.click();
    await page.getByRole('alert').filter({ hasText: /./ }).first().waitFor();
    assert.equal(
      (await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, { key: testKey })).json()
        .status,
      'pending',
      'nothing signed without consent',
    );
    await page.getByLabel('I understand that this test signature has no legal value.').check();
    await sign.click();
    await page.getByRole('heading', { name: 'You have signed' }).waitFor();
    await shots.take(page, 'signed');

    const status = (
      await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, { key: testKey })
    ).json();
    assert.equal(status.status, 'completed');
    const pdf = (
      await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}/download`, { key: testKey })
    ).rawPayload;
    const poppler = pdfsigVerdicts(pdf);
    assert.deepEqual(
      poppler.valid,
      [true, true, true],
      `the test certificate's signature, the certification at send and the completion lock: ${poppler.output}`,
    );
    assert.match(poppler.output, /Meera Iyer \(TEST\)/);
    assert.deepEqual(errors, []);
  });
});
