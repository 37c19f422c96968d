/**
 * Issue 16, point 11, in Chromium: a revoked signing link (replaced by a newer one, or ended with revoke-links)
 * shows the signing page's "this link is no longer valid" state, in English and Hindi, not an error with a retry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkPhoneWidth, launchChromium, listenOnLoopback, onServer, screenshots } from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe('a revoked signing link in Chromium', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('revoked-link');
  let origin: string;
  let page: Page;
  before(async () => {
    origin = await listenOnLoopback(t.server);
    page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
  });

  test('revoke-links: the page says the link is no longer valid', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    assert.equal(session.statusCode, 201, session.body);
    const url = onServer(origin, session.json().signing_url);
    const revoked = await t.server.request(
      'POST',
      `${API}/envelopes/${draft.id}/recipients/${draft.recipientIds[0]}/revoke-links`,
      { key: t.account.key },
    );
    assert.equal(revoked.statusCode, 200, revoked.body);

    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'This link is no longer valid', exact: true }).waitFor();
    await page.getByText('A newer link was sent to you, or the sender withdrew this one.', { exact: false }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Try again' }).count(), 0, 'nothing to retry');
    await shots.take(page, 'revoked');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('hi');
    await page.getByRole('heading', { level: 1, name: 'यह लिंक अब मान्य नहीं है', exact: true }).waitFor();
    await shots.take(page, 'revoked-hindi');
    await checkPhoneWidth(page, shots, 'revoked-hindi', [page.getByRole('heading', { level: 1 })]);
  });
});
