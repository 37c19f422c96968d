/**
 * End to end in Chromium: declining, the pages for links that cannot be used (expired, not your turn yet,
 * declined, voided, used), and embedding: a page on an allowed origin frames the signing page and receives
 * its postMessage; a page on another origin cannot frame it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { insertSession } from '../../server/domain/workflow/sessions.js';
import {
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  onServer,
  screenshots,
  servePage,
} from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, LEGACY, useTestServer } from '../support/server.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe('declining, dead links and embedding in Chromium', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('link-states');
  let origin: string;
  let page: Page;
  before(async () => {
    origin = await listenOnLoopback(t.server);
    page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
  });

  const envelope = (
    recipients = [
      { name: 'Asha Rao', email: 'asha@example.com' },
      { name: 'Ravi Kumar', email: 'ravi@example.com' },
    ],
  ) => makeDraft(t.server, t.account.key, { recipients });
  async function link(
    envelopeId: string,
    recipientId: string,
    extra: Record<string, unknown> = { mode: 'redirect' },
  ): Promise<string> {
    const session = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: recipientId, ...extra },
    });
    assert.equal(session.statusCode, 201, session.body);
    return onServer(origin, session.json().signing_url);
  }
  /** The page's main heading, once the page has loaded the link's state. */
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

  test('decline with a reason; the link then says the document was declined', async () => {
    const draft = await envelope();
    await sendDraft(t.server, t.account.key, draft);
    const url = await link(draft.id, draft.recipientIds[0]!);
    await page.goto(url);
    await page.getByRole('button', { name: 'Decline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Decline this document' });
    await dialog.getByRole('button', { name: 'Decline the document' }).click();
    await dialog.getByText('Please give a reason.').waitFor();
    await dialog.getByLabel(/Why do you decline/).fill('The rent is wrong');
    await shots.take(page, 'decline-reason');
    await dialog.getByRole('button', { name: 'Decline the document' }).click();
    await page.getByRole('heading', { name: 'You have declined' }).waitFor();
    await shots.take(page, 'declined');
    const status = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
    assert.equal(status.status, 'declined');
    assert.equal(status.status_reason, 'The rent is wrong');

    await page.goto(url);
    await page.getByRole('heading', { name: 'This document was declined' }).waitFor();
  });

  test('not your turn yet; then signed, the same link says it was used', async () => {
    const draft = await envelope();
    await sendDraft(t.server, t.account.key, draft);
    // Headless integrations hand out every recipient's link at once; the second recipient opens theirs early.
    const early = onServer(
      origin,
      await insertSession(t.server.ctx.db, t.server.ctx.config.baseUrl, {
        envelopeId: draft.id,
        recipientId: draft.recipientIds[1]!,
        mode: 'redirect',
        origin: null,
        returnUrl: null,
        expiresAt: new Date(t.server.clock.now().getTime() + 600_000),
        now: t.server.clock.now(),
      }),
    );
    await page.goto(early);
    await heading('It is not your turn yet');
    await shots.take(page, 'not-your-turn');

    const first = await link(draft.id, draft.recipientIds[0]!);
    const act = await t.server.request('POST', `${API}/signing/${new URL(first).pathname.split('/').pop()}`, {
      json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
    });
    assert.equal(act.statusCode, 200, act.body);
    await page.goto(first);
    await heading('This link was already used');
    assert.match((await page.textContent('main')) ?? '', /You have already signed this document/);
    await shots.take(page, 'used');

    await page.goto(early);
    await page.getByRole('button', { name: /Sign here/ }).waitFor();
    await shots.take(page, 'now-your-turn');
  });

  test('voided, and expired links', async () => {
    const draft = await envelope([{ name: 'Asha Rao', email: 'asha@example.com' }]);
    await sendDraft(t.server, t.account.key, draft);
    const voided = await link(draft.id, draft.recipientIds[0]!);
    assert.equal(
      (
        await t.server.request('POST', `${API}/envelopes/${draft.id}/void`, {
          key: t.account.key,
          json: { reason: 'wrong file' },
        })
      ).statusCode,
      200,
    );
    await page.goto(voided);
    await heading('The sender cancelled this document');
    await page.getByText('The sender’s reason:').getByText('wrong file').waitFor();
    await shots.take(page, 'voided');

    // A mistyped link cannot be told from an expired one (the server gives no oracle for unknown tokens).
    const mistyped = voided.replace(/\/sign\/(.)/, (_whole, first: string) => `/sign/${first === 'A' ? 'B' : 'A'}`);
    assert.notEqual(mistyped, voided);
    await page.goto(mistyped);
    await heading('This link is not valid or has expired');
    await shots.take(page, 'mistyped');

    const other = await envelope([{ name: 'Asha Rao', email: 'asha@example.com' }]);
    await sendDraft(t.server, t.account.key, other);
    const expiring = await link(other.id, other.recipientIds[0]!);
    t.server.clock.advance(15 * 60 + 1);
    await page.goto(expiring);
    await heading('This link is not valid or has expired');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('hi');
    await heading('यह लिंक मान्य नहीं है या इसकी समय-सीमा समाप्त हो गई है');
    assert.equal(await page.getAttribute('html', 'lang'), 'hi');
    await shots.take(page, 'expired-hindi');
    await page.getByRole('combobox', { name: 'भाषा' }).selectOption('en');
  });

  test('a link that expires while the signer fills in says so when they sign', async () => {
    const draft = await envelope([{ name: 'Asha Rao', email: 'asha@example.com' }]);
    await sendDraft(t.server, t.account.key, draft);
    await page.goto(await link(draft.id, draft.recipientIds[0]!));
    await page.getByRole('button', { name: /Sign here/ }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Use this signature' }).click();
    await page.getByRole('checkbox', { name: /I agree to sign/ }).check();
    t.server.clock.advance(15 * 60 + 1);
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await heading('This link is not valid or has expired');
    await shots.take(page, 'expired-while-filling');
  });

  test('embedded: an allowed origin frames the page and hears "signed"; another origin cannot frame it', async () => {
    const parent = await servePage();
    const stranger = await servePage();
    try {
      const admin = await t.server.login(t.account.email, t.account.password);
      assert.equal(
        (
          await t.server.request('PUT', `${LEGACY}/account/settings/`, {
            token: admin,
            json: { allowed_origins: [parent.origin] },
          })
        ).statusCode,
        200,
      );
      const draft = await envelope([{ name: 'Asha Rao', email: 'asha@example.com' }]);
      await sendDraft(t.server, t.account.key, draft);
      const embedded = await link(draft.id, draft.recipientIds[0]!, { mode: 'embedded', origin: parent.origin });
      const frameHtml = (src: string) => `<!doctype html><title>Integrator</title><h1>Integrator app</h1>
<iframe id="signing" src="${src}" style="width:900px;height:640px;border:1px solid #888"></iframe>
<script>window.received = []; window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));</script>`;
      parent.html = frameHtml(embedded);
      stranger.html = frameHtml(embedded);

      const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
      const host = await context.newPage();
      const errors = collectPageErrors(host);
      await host.goto(parent.origin);
      const frame = host.frameLocator('#signing');
      await frame.getByRole('button', { name: /Sign here/ }).click();
      await frame.getByRole('tab', { name: 'Type' }).click();
      await frame.getByRole('button', { name: 'Use this signature' }).click();
      await frame.getByRole('checkbox', { name: /I agree to sign/ }).check();
      await shots.take(host, 'embedded-ready');
      await frame.getByRole('button', { name: 'Sign', exact: true }).click();
      await frame.getByRole('heading', { name: 'You have signed' }).waitFor();
      await host.waitForFunction(() => (globalThis as unknown as { received: unknown[] }).received.length > 0);
      const received = await host.evaluate(() => (globalThis as unknown as { received: unknown[] }).received);
      assert.deepEqual(received, [{ origin, data: { type: 'mohar.signing', event: 'signed' } }]);
      await shots.take(host, 'embedded-signed');
      assert.deepEqual(errors, []);

      const refused: string[] = [];
      const strangerPage = await context.newPage();
      strangerPage.on('console', (m) => refused.push(m.text()));
      await strangerPage.goto(stranger.origin);
      await strangerPage.waitForTimeout(500);
      const child = strangerPage.frames().find((f) => f !== strangerPage.mainFrame())!;
      assert.ok(
        !child.url().startsWith(origin) || (await child.locator('#root').count()) === 0,
        "the signing page did not load in the stranger's frame",
      );
      assert.ok(
        refused.some((text) => /frame-ancestors/.test(text)),
        `Chromium names the CSP rule: ${refused.join(' | ')}`,
      );
      assert.deepEqual(
        await strangerPage.evaluate(() => (globalThis as unknown as { received: unknown[] }).received),
        [],
      );
      await shots.take(strangerPage, 'stranger-refused');
      await context.close();
    } finally {
      await parent.close();
      await stranger.close();
    }
  });
});
