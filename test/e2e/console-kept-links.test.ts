/**
 * Issue 28 point 1 in Chromium: an office without a mail server hands links over by hand. The invitation says no
 * mail was sent and shows the set-password link; the operators' outbox opens a kept mail (its text shown as text,
 * never as HTML; each link with a Copy button; a test mail keeps its badge); the envelope page offers a signing
 * link for every recipient whose turn it is and names whom a sequential recipient waits for. Desktop and phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { queueMail } from '../../server/mail/outbox.js';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
} from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { DATABASES } from '../support/databases.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { useTestServer } from '../support/server.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const NEW_ADMIN = 'meera.admin@example.com';
/** Text a mail could carry (a name typed by someone): it must show as these characters, not become markup. */
const MARKUP = '<img src=x onerror="window.__injected=1"><b>bold</b>';

for (const kind of DATABASES) {
  describe(`links without a mail server in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    let page: Page;
    let errors: string[] = [];
    const shots = screenshots(`console-kept-links${kind === 'sqlite' ? '' : `-${kind}`}`);

    before(async () => {
      origin = await listenOnLoopback(t.server);
      page = await (await newContext(browser, { viewport: { width: 1280, height: 900 } })).newPage();
      await logInToConsole(page, origin, t.account);
      // From here on (the login page's session check answers 401 before anyone has logged in).
      errors = collectPageErrors(page);
    });
    after(() => assert.deepEqual(errors, [], 'no page errors'));

    test('the invitation says no mail was sent and shows the set-password link to copy', async () => {
      await page.goto(`${origin}/app/users`);
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByLabel('E-mail', { exact: true }).fill(NEW_ADMIN);
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const dialog = page.getByRole('dialog', { name: `No mail was sent to ${NEW_ADMIN}` });
      await dialog.getByText('No mail server is set up, so Mohar kept the invitation').waitFor();
      const link = dialog.getByLabel('Set-password link');
      assert.match(await link.inputValue(), /\/app\/set-password\?token=msp_[\w-]+$/);
      assert.equal(await page.getByText(/Invitation sent/).count(), 0, 'nothing claims a mail went out');
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await dialog.getByText('Copied.').waitFor();
      await shots.take(page, 'invite-kept-link');
      await checkPhoneWidth(page, shots, 'invite-kept-link', [dialog.getByRole('button', { name: 'Copy' })]);
      const url = await link.inputValue();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${NEW_ADMIN} is invited, but no mail was sent` })
        .waitFor();

      // The link shown is the real one: it opens the set-password page.
      const other = await (await newContext(browser)).newPage();
      await other.goto(onServer(origin, url));
      await other.getByRole('heading', { name: 'Choose your password' }).waitFor();
      await other.close();
    });

    test('the outbox opens a kept mail: its text as text, each link with a Copy button, the test badge', async () => {
      await queueMail(
        t.server.ctx.db,
        {
          accountId: t.account.accountId,
          to: 'asha@example.com',
          toName: 'Asha Rao',
          subject: 'A mail with markup in it',
          text: `Dear ${MARKUP},\nSign here: https://mohar.test/sign/first.\nOr here: https://mohar.test/sign/second`,
          html: `<p>${MARKUP}</p>`,
          kind: 'other',
        },
        t.server.ctx.now(),
      );
      // As a test envelope's mail would be (qsk_test_ key): kept, never delivered, badged.
      await t.server.ctx.db
        .updateTable('outbox_mail')
        .set({ test: 1 })
        .where('subject', '=', 'A mail with markup in it')
        .execute();
      await t.server.runJobs();
      await page.goto(`${origin}/app/operators`);
      const row = page.locator('tr[data-mail]').filter({ hasText: 'A mail with markup in it' });
      await row.getByText('Kept').waitFor();
      await row.getByText('Test: never delivered').waitFor();
      await row.getByRole('button', { name: 'Open the mail to asha@example.com' }).click();

      const dialog = page.getByRole('dialog', { name: 'Mail to asha@example.com' });
      const text = dialog.locator('[data-mail-text]');
      await text.waitFor();
      assert.equal(
        await text.textContent(),
        `Dear ${MARKUP},\nSign here: https://mohar.test/sign/first.\nOr here: https://mohar.test/sign/second`,
      );
      assert.equal(await dialog.locator('img, b').count(), 0, 'the text made no elements');
      assert.equal(await page.evaluate('window.__injected'), undefined, 'nothing in the mail ran');
      await dialog.getByText('Test: never delivered').waitFor();
      assert.equal(await dialog.getByRole('textbox', { name: 'Link 1' }).inputValue(), 'https://mohar.test/sign/first');
      assert.equal(
        await dialog.getByRole('textbox', { name: 'Link 2' }).inputValue(),
        'https://mohar.test/sign/second',
      );
      await dialog.getByRole('button', { name: 'Copy: Link 2' }).click();
      await dialog.getByText('Copied.').waitFor();
      await shots.take(page, 'outbox-mail-open');
      await checkPhoneWidth(page, shots, 'outbox-mail-open', [dialog.getByRole('button', { name: 'Copy: Link 1' })]);
      await dialog.getByRole('button', { name: 'Close' }).click();

      // The invitation of the first test is there too, with its set-password link.
      await page
        .locator('tr[data-mail]')
        .filter({ hasText: NEW_ADMIN })
        .getByRole('button', { name: `Open the mail to ${NEW_ADMIN}` })
        .click();
      const invitation = page.getByRole('dialog', { name: `Mail to ${NEW_ADMIN}` });
      assert.match(
        await invitation.getByRole('textbox', { name: 'Link 1' }).inputValue(),
        /\/app\/set-password\?token=msp_/,
      );
      await invitation.getByText('This mail was not sent. Hand the link to the person yourself').waitFor();
      await invitation.getByRole('button', { name: 'Close' }).click();
    });

    test('every recipient whose turn it is gets a link; the others say whom they wait for', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        routing_order: 'sequential',
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com', sequence: 1 },
          { name: 'Ravi Kumar', email: 'ravi@example.com', sequence: 1 },
          { name: 'Meera Iyer', email: 'meera@example.com', sequence: 2 },
          { name: 'Sunil Das', email: 'sunil@example.com', sequence: 3 },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      await page.goto(`${origin}/app/envelopes/${draft.id}`);
      await page.getByRole('heading', { name: 'Agreement' }).waitFor();
      for (const name of ['Asha Rao', 'Ravi Kumar']) {
        await page
          .getByRole('row', { name: new RegExp(name) })
          .getByRole('button', { name: 'Copy signing link' })
          .waitFor();
      }
      await page
        .getByRole('row', { name: /Meera Iyer/ })
        .getByText('Their turn comes after Asha Rao and Ravi Kumar')
        .waitFor();
      await page
        .getByRole('row', { name: /Sunil Das/ })
        .getByText('Their turn comes after Asha Rao, Ravi Kumar and Meera Iyer')
        .waitFor();
      for (const name of ['Meera Iyer', 'Sunil Das']) {
        const buttons = page.getByRole('row', { name: new RegExp(name) }).getByRole('button');
        assert.equal(await buttons.count(), 0, `no dead button for ${name}`);
      }
      await shots.take(page, 'envelope-links');
      await checkPhoneWidth(page, shots, 'envelope-links', [
        page.getByRole('row', { name: /Ravi Kumar/ }).getByRole('button', { name: 'Copy signing link' }),
      ]);

      await page
        .getByRole('row', { name: /Ravi Kumar/ })
        .getByRole('button', { name: 'Copy signing link' })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Signing link for Ravi Kumar' });
      assert.match(await dialog.getByLabel('Link (hand it to this person only)').inputValue(), /\/sign\/[\w-]{20,}$/);
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await dialog.getByText('Copied.').waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();

      // In Hindi too.
      await page.getByLabel('Language / भाषा').selectOption('hi');
      await page
        .getByRole('row', { name: /Meera Iyer/ })
        .getByText('Asha Rao और Ravi Kumar के बाद इनकी बारी आएगी')
        .waitFor();
      await shots.take(page, 'envelope-links-hindi');
      await page.getByLabel('Language / भाषा').selectOption('en');
    });
  });
}

for (const kind of DATABASES) {
  describe(`the invitation with a mail server in Chromium on ${kind}`, () => {
    // Jobs run only when a test asks, so nothing tries to reach this mail server.
    const t = useTestServer(kind, { MOHAR_SMTP_URL: 'smtp://127.0.0.1:2525' });
    const shots = screenshots(`console-kept-links-smtp${kind === 'sqlite' ? '' : `-${kind}`}`);

    test('says the invitation was sent and shows no link', async () => {
      const origin = await listenOnLoopback(t.server);
      const page = await (await newContext(browser, { viewport: { width: 1280, height: 900 } })).newPage();
      await logInToConsole(page, origin, t.account, '/users');
      const errors = collectPageErrors(page);
      await page.getByLabel('E-mail', { exact: true }).fill(NEW_ADMIN);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Invitation sent to ${NEW_ADMIN}.` })
        .waitFor();
      assert.equal(await page.getByRole('dialog').count(), 0, 'no link dialog: the link went by mail');
      assert.equal(await page.getByText(/no mail was sent/i).count(), 0);
      await shots.take(page, 'invite-sent');
      await checkPhoneWidth(page, shots, 'invite-sent');
      assert.deepEqual(errors, []);
    });
  });
}
