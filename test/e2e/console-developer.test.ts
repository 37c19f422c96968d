/**
 * The developer portal and operators' pages of the office console in Chromium (issue 15), on SQLite: the
 * admin rotates the live API key (the old key gets 401 at once), registers a webhook to a loopback receiver
 * (a refused URL first, explained on the field), sends a test event and sees its attempt with status 200,
 * makes the receiver answer 500, redelivers and sees both attempts (the row keeps the earlier success beside
 * "Redelivery failed"); the URL hint says this server accepts private receivers; reveals and
 * rotates the secret (overlap shown); saves embedding origins (a refused one explained); reads the usage
 * numbers and chart; sees the kept mail (send again refused in words without SMTP) and retries a dead job.
 * Deliveries are driven by a WebhookWorker the test runs at each step (deliverDue), as the server would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { WebhookWorker } from '../../server/webhooks/worker.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';
import { collectPageErrors, launchChromium, listenOnLoopback, newContext, screenshots } from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { LEGACY, useTestServer } from '../support/server.js';
import { DATABASES } from '../support/databases.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

for (const kind of DATABASES) {
  describe(`console developer portal in Chromium on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
    let origin: string;
    let receiver: TestReceiver;
    let worker: WebhookWorker;
    let page: Page;
    let errors: string[];
    const shots = screenshots(`console-developer${kind === 'sqlite' ? '' : `-${kind}`}`);
    before(async () => {
      origin = await listenOnLoopback(t.server);
      receiver = await startReceiver();
      worker = new WebhookWorker(t.server.ctx, { listen: false });
      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      page = await context.newPage();
      errors = collectPageErrors(page);
      await logInToConsole(page, origin, t.account, '/developer');
    });
    after(async () => {
      await worker?.stop();
      await receiver?.close();
    });

    test('API keys: the live key rotated with a one-time reveal; the old key stops at once', async () => {
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Developers' }).waitFor();
      await nav.getByRole('link', { name: 'Operators' }).waitFor();
      const live = page.getByRole('region', { name: 'Live key' });
      await live.getByText(`${t.account.key.slice(0, 'qsk_live_'.length + 8)}…`).waitFor();
      await shots.take(page, 'keys');
      assert.equal((await t.server.request('GET', `${LEGACY}/apikey/get/`, { key: t.account.key })).statusCode, 200);

      await live.getByRole('button', { name: 'Rotate live key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the live key?' });
      await dialog.getByText(/stops working at once/).waitFor();
      await shots.take(page, 'keys-confirm');
      await dialog.getByRole('button', { name: 'Rotate now' }).click();
      const revealed = live.getByLabel('Your new live key');
      await revealed.waitFor();
      const newKey = await revealed.inputValue();
      assert.match(newKey, /^qsk_live_[A-Za-z0-9_-]{43}$/);
      assert.equal(
        await revealed.evaluate((element) => element === element.ownerDocument.activeElement),
        true,
        'focus on the revealed key',
      );
      await live.getByText('it will not be shown again').waitFor();
      await live.getByRole('button', { name: 'Copy' }).click();
      await live.getByText(/Copied to the clipboard|press Ctrl\+C/).waitFor();
      await live.getByText(`${newKey.slice(0, 'qsk_live_'.length + 8)}…`).waitFor();
      await shots.take(page, 'keys-rotated');

      const old = await t.server.request('GET', `${LEGACY}/apikey/get/`, { key: t.account.key });
      assert.equal(old.statusCode, 401, 'the old key is refused at once');
      assert.equal((await t.server.request('GET', `${LEGACY}/apikey/get/`, { key: newKey })).statusCode, 200);
      t.account.key = newKey;

      // Not a test-mode account: the refusal says why.
      await page.getByRole('region', { name: 'Test key' }).getByRole('button', { name: 'Generate test key' }).click();
      await page.getByText('This account is not enabled for test mode').waitFor();
    });

    test('webhooks: refused URL explained, register, test event delivered (200), a 500 redelivery logged beside it', async () => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('No webhook yet').waitFor();
      // This server allows private receivers (MOHAR_WEBHOOK_ALLOW_PRIVATE=1): the hint says so, not the opposite.
      await page.getByText('This server is set to accept private receivers').waitFor();
      assert.equal(await page.getByText('loopback, private-network and metadata addresses are refused').count(), 0);
      const url = page.getByLabel('Webhook URL');
      await url.fill('ftp://files.example.com/hooks');
      await page.getByRole('button', { name: 'Register webhook' }).click();
      const refusal = page.locator('.field-error[role="alert"]');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /https|http/i, 'the server says which rule failed');
      await shots.take(page, 'webhook-refused');

      await url.fill(receiver.url);
      await page.getByRole('button', { name: 'Register webhook' }).click();
      const secret = page.getByLabel('Webhook signing secret');
      await secret.waitFor();
      assert.match(await secret.inputValue(), /^whsec_/);
      await page.getByRole('region', { name: 'Your webhook receiver' }).getByText(receiver.url).waitFor();

      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('Test event queued').waitFor();
      assert.equal(await worker.deliverDue(), 1);
      await receiver.waitFor(1);
      const row = page.locator('tr[data-delivery]').filter({ hasText: 'webhook.test' });
      await row.getByText('Succeeded').waitFor({ timeout: 10_000 });
      assert.match((await row.textContent()) ?? '', /200/);
      await row.getByRole('button', { name: 'Attempts' }).click();
      const attempts = page.getByRole('table', { name: 'Attempts of webhook.test' });
      await attempts.locator('tr[data-attempt="1"]').getByText('200', { exact: true }).waitFor();
      await shots.take(page, 'webhook-delivered', true);

      // The receiver breaks; redeliver: attempt 2 is logged with its 500 and the answer's start.
      receiver.respond = () => ({ status: 500, body: 'receiver exploded' });
      await row.getByRole('button', { name: 'Redeliver' }).click();
      await page.getByText('Deliveries are pending').waitFor();
      await row.getByText('Redelivery pending').waitFor();
      await row.getByText('Succeeded', { exact: true }).waitFor();
      await shots.take(page, 'webhook-redelivery-pending', true);
      assert.equal(await worker.deliverDue(), 1);
      await receiver.waitFor(2);
      const second = attempts.locator('tr[data-attempt="2"]');
      await second.getByText('500', { exact: true }).waitFor({ timeout: 10_000 });
      await second.getByText('Failed').waitFor();
      await attempts.locator('tr[data-attempt="1"]').getByText('Succeeded').waitFor();
      assert.equal(await attempts.locator('tbody tr').count(), 2, 'both attempts listed');
      // The event had reached the receiver: the row keeps that success in view beside the failed redelivery (one
      // extra attempt, no schedule of retries), never a bare "Pending" or "Dead letter".
      await row.getByText('Redelivery failed').waitFor({ timeout: 10_000 });
      await row.getByText('Succeeded', { exact: true }).waitFor();
      await row.getByText(/^Delivered /).waitFor();
      assert.equal(await row.getByText('Pending').count(), 0);
      assert.equal(await row.getByText('Dead letter').count(), 0);
      await shots.take(page, 'webhook-redelivered', true);
      await page.setViewportSize({ width: 390, height: 844 });
      await shots.take(page, 'webhook-log-phone', true);
      assert.equal(
        await page.locator('html').evaluate((html) => html.scrollWidth),
        390,
        'nothing wider than the phone: the log scrolls in its frame',
      );
      await page.setViewportSize({ width: 1280, height: 900 });

      // The failed redelivery used its one attempt: the delivery is dead, so the status filter lists it.
      await page.getByLabel('Status', { exact: true }).selectOption('dead');
      await page.locator('tr[data-delivery]').filter({ hasText: 'webhook.test' }).waitFor();
      await page.getByLabel('Event type').selectOption('envelope.completed');
      await page.getByText('No deliveries match these filters.').waitFor();
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await page.getByLabel('Event type').selectOption('');

      // More than a page: the older ones on demand.
      for (let i = 0; i < 25; i++) {
        assert.equal(
          (await t.server.request('POST', `${LEGACY}/webhook/test/`, { token: t.account.token })).statusCode,
          202,
        );
      }
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('button', { name: 'Older deliveries' }).click();
      await page.locator('tr[data-delivery]').nth(25).waitFor();
      assert.equal(await page.locator('tr[data-delivery]').count(), 26, 'both pages, each delivery once');
      assert.equal(await page.getByRole('button', { name: 'Older deliveries' }).count(), 0, 'no more pages');

      // Secret: reveal, then rotate with a 12-hour overlap shown.
      await page.getByRole('button', { name: 'Hide secret' }).click();
      await page.getByRole('button', { name: 'Reveal secret' }).click();
      const shown = await secret.inputValue();
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
      await dialog.getByLabel(/Hours the old secret keeps signing/).fill('12');
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByText(/The previous secret also signs until/).waitFor();
      assert.notEqual(await secret.inputValue(), shown, 'a new secret');
      const endpoint = (await t.server.request('GET', `${LEGACY}/webhook/`, { token: t.account.token })).json();
      const hours = (Date.parse(endpoint.previous_secret_expires_at) - Date.now()) / 3_600_000;
      assert.ok(hours > 11.9 && hours <= 12, `overlap of 12 h (${hours})`);
      await shots.take(page, 'webhook-secret-rotated');
    });

    test('embedding: origins validated, saved as origins', async () => {
      await page.getByRole('link', { name: 'Embedding' }).click();
      await page.getByText('No origins yet').waitFor();
      const input = page.getByLabel('Add an origin');
      await input.fill('portal.example.com');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('“portal.example.com” is not an origin').waitFor();
      await shots.take(page, 'embedding-refused');
      await input.fill('https://portal.example.com/sign/here?x=1');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await input.fill('http://127.0.0.1:8080');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await input.fill('https://portal.example.com');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('https://portal.example.com is in the list already.').waitFor();
      await page.getByRole('button', { name: 'Save origins' }).click();
      await page.getByText('Saved. Embedded sessions for these origins work now.').waitFor();
      await shots.take(page, 'embedding-saved');
      const settings = (
        await t.server.request('GET', `${LEGACY}/account/settings/`, { token: t.account.token })
      ).json();
      assert.deepEqual(settings.allowed_origins, ['https://portal.example.com', 'http://127.0.0.1:8080']);
    });

    test('usage: this month against the quota, the rate limit, per-day bars', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      await page.getByRole('link', { name: 'Usage' }).click();
      await page.getByText('0 calls (no monthly limit)').waitFor();
      await page.getByText('10,00,000 requests per minute').waitFor();
      await page.getByRole('img', { name: 'Envelopes created per day this month: 1 in all' }).waitFor();
      await shots.take(page, 'usage');
    });

    test('operators: the kept mail (send again refused without SMTP, in words), a dead job retried', async () => {
      await t.server.runJobs();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operators' }).click();
      const mail = page.locator('tr[data-mail]').filter({ hasText: 'asha@example.com' });
      await mail.getByText('Kept').waitFor();
      await page.getByText('Kept mails were not sent because no mail server was set up').waitFor();
      await mail.getByRole('button', { name: 'Send again' }).click();
      await page
        .getByRole('alert')
        .getByText(/no mail server is set \(neither MOHAR_SMTP_URL nor the mail settings in the console\)/)
        .waitFor();
      await shots.take(page, 'outbox');

      const job = await t.server.ctx.db
        .selectFrom('jobs')
        .select('id')
        .where('account_id', '=', t.account.accountId)
        .where('kind', '=', 'mail.send')
        .executeTakeFirstOrThrow();
      await t.server.ctx.db
        .updateTable('jobs')
        .set({ state: 'dead', last_error: 'SMTP 421 try later' })
        .where('id', '=', job.id)
        .execute();
      await page.getByRole('link', { name: 'Jobs' }).click();
      const row = page.locator(`tr[data-job="${job.id}"]`);
      await row.getByText('Dead letter').waitFor();
      await row.getByText('SMTP 421 try later').waitFor();
      await shots.take(page, 'jobs-dead');
      await row.getByRole('button', { name: 'Retry' }).click();
      await page.getByText('The mail.send job is queued again.').waitFor();
      await row.getByText('Queued').waitFor();
      await shots.take(page, 'jobs-retried');
      assert.equal(
        (await t.server.ctx.db.selectFrom('jobs').select('state').where('id', '=', job.id).executeTakeFirstOrThrow())
          .state,
        'queued',
      );
    });

    test('the pages in Hindi, and no page errors but the refusals the tests caused', async () => {
      await page.getByRole('combobox', { name: 'Language / भाषा' }).selectOption('hi');
      await page.locator('.console-nav').getByRole('link', { name: 'डेवलपर' }).click();
      await page.getByRole('heading', { name: 'API कुंजियाँ', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'वेबहुक' }).click();
      await page.getByRole('heading', { name: 'डिलीवरी लॉग' }).waitFor();
      await shots.take(page, 'webhooks-hi', true);
      await page.getByRole('combobox', { name: 'Language / भाषा' }).selectOption('en');
      // Expected refusals: 404 for "no webhook yet", 403 for the test key, 422 for the refused webhook URL, 409 for
      // "send again" without SMTP. The session check before logging in is a 204, not a logged 401.
      const unexpected = errors.filter(
        (e) => !/Failed to load resource: the server responded with a status of (403|404|409|422)/.test(e),
      );
      assert.deepEqual(unexpected, []);
    });

    test('a sender sees neither menu entry, and the pages refuse in words (the server answers 403)', async () => {
      const email = 'sender@test.local';
      const invited = await t.server.request('POST', `${LEGACY}/users/`, {
        token: t.account.token,
        json: { email, role: 'sender' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const mail = await t.server.ctx.db
        .selectFrom('outbox_mail')
        .select('text')
        .where('to_address', '=', email)
        .executeTakeFirstOrThrow();
      const link = /\/app\/set-password\?token=(\S+)/.exec(mail.text);
      assert.ok(link, mail.text);
      const password = 'sender password 12345';
      assert.equal(
        (
          await t.server.request('POST', `${LEGACY}/users/set-password/`, {
            json: { token: decodeURIComponent(link[1]!), password },
          })
        ).statusCode,
        200,
      );
      const senderToken = await t.server.login(email, password);
      assert.equal(
        (await t.server.request('GET', `${LEGACY}/webhook/deliveries/`, { token: senderToken })).json().code,
        'insufficient_role',
      );

      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      const senderPage = await context.newPage();
      await logInToConsole(senderPage, origin, { email, password }, '/developer/webhooks');
      await senderPage.getByRole('alert').getByText('Your login (sender) cannot manage the account').waitFor();
      assert.equal(await senderPage.getByRole('link', { name: 'API keys' }).count(), 0, 'no portal tabs');
      await senderPage.getByRole('link', { name: 'Go to envelopes' }).waitFor();
      const nav = senderPage.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Envelopes' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Developers' }).count(), 0);
      assert.equal(await nav.getByRole('link', { name: 'Operators' }).count(), 0);
      await shots.take(senderPage, 'sender-refused');
      await context.close();
    });
  });
}
