/**
 * Users and roles in the office console, in Chromium on SQLite (issue 15): an admin invites a sender; the
 * sender opens the mailed link (from the mail outbox), sets a password, logs in, sees the envelope they sent,
 * has no account-management navigation and is refused the keys page in words; the admin deactivates the sender,
 * whose next action shows the login. Then: changing one's own password, "Forgot password?", the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
} from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { API, LEGACY, useTestServer, type TestServer } from '../support/server.js';
import { DATABASES } from '../support/databases.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const ADMIN = { email: 'priya.admin@example.com', password: 'admin passphrase long' };
const SENDER = { email: 'ravi.sender@example.com', password: 'sender passphrase long' };

/** The set-password link of the newest mail to `to`, on the listening server. */
async function mailedLink(server: TestServer, origin: string, to: string): Promise<string> {
  await server.runJobs();
  const mail = await server.ctx.db
    .selectFrom('outbox_mail')
    .select('text')
    .where('to_address', '=', to)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  const url = /(http\S+\/app\/set-password\?token=\S+)/.exec(mail.text)?.[1];
  assert.ok(url, mail.text);
  return onServer(origin, url);
}

/** A sent envelope made with a login token through the same API the console uses. */
async function sendAsUser(server: TestServer, token: string, title: string): Promise<void> {
  const created = await server.request('POST', `${API}/envelopes`, {
    token,
    json: { title, recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const envelope = created.json();
  const document = await server.request('POST', `${API}/envelopes/${envelope.id}/documents`, {
    token,
    file: { bytes: makePdf({ pages: 1 }) },
  });
  assert.equal(document.statusCode, 201, document.body);
  const fields = [
    {
      recipient_id: envelope.recipients[0].recipient_id,
      field_type: 1,
      page_number: 1,
      x: 40,
      y: 40,
      width: 180,
      height: 50,
    },
  ];
  assert.equal(
    (
      await server.request('PUT', `${API}/envelopes/${envelope.id}/documents/${document.json().document_id}/fields`, {
        token,
        json: { fields },
      })
    ).statusCode,
    200,
  );
  const sent = await server.request('POST', `${API}/envelopes/${envelope.id}/send`, { token });
  assert.equal(sent.statusCode, 200, sent.body);
}

for (const kind of DATABASES) {
  describe(`console users and roles in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    let adminPage: Page;
    let senderContext: BrowserContext;
    let senderPage: Page;
    const errors: string[] = [];
    const shots = screenshots(`console-users${kind === 'sqlite' ? '' : `-${kind}`}`);

    before(async () => {
      origin = await listenOnLoopback(t.server);
      // The account's api_admin login invites the first admin (an account without an admin allows it).
      const invited = await t.server.request('POST', `${LEGACY}/users/`, {
        token: t.account.token,
        json: { email: ADMIN.email, role: 'admin' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const token = new URL(await mailedLink(t.server, origin, ADMIN.email)).searchParams.get('token');
      assert.equal(
        (await t.server.request('POST', `${LEGACY}/users/set-password/`, { json: { token, password: ADMIN.password } }))
          .statusCode,
        200,
      );

      adminPage = await (await newContext(browser, { viewport: { width: 1280, height: 900 } })).newPage();
      errors.push(...collectPageErrors(adminPage));
      senderContext = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      senderPage = await senderContext.newPage();
      await logInToConsole(adminPage, origin, ADMIN);
    });

    test('the admin invites a sender; the mailed link sets the password once', async () => {
      await adminPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await adminPage.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await adminPage.getByLabel('E-mail', { exact: true }).fill(SENDER.email);
      await adminPage.getByLabel('Role', { exact: true }).selectOption('sender');
      await adminPage.getByRole('button', { name: 'Send invitation' }).click();
      // The test server has no mail server: the console says no mail went out and shows the link (issue 28).
      await adminPage
        .getByRole('status')
        .filter({ hasText: `${SENDER.email} is invited, but no mail was sent` })
        .waitFor();
      const keptDialog = adminPage.getByRole('dialog', { name: `No mail was sent to ${SENDER.email}` });
      await keptDialog.getByRole('button', { name: 'Close' }).click();
      const row = adminPage.getByRole('row').filter({ hasText: SENDER.email });
      await row.getByText('Invited').waitFor();
      await shots.take(adminPage, 'users-invited');

      const link = await mailedLink(t.server, origin, SENDER.email);
      await senderPage.goto(link);
      await senderPage.getByRole('heading', { name: 'Choose your password' }).waitFor();
      await senderPage.getByLabel('New password', { exact: true }).fill(SENDER.password);
      await senderPage.getByLabel('New password again').fill('something else entirely');
      await senderPage.getByRole('button', { name: 'Save password' }).click();
      await senderPage.getByRole('alert').filter({ hasText: 'The two new passwords differ.' }).waitFor();
      await senderPage.getByLabel('New password again').fill(SENDER.password);
      await senderPage.getByRole('button', { name: 'Save password' }).click();
      await senderPage.getByText(`Your password is saved. Log in as ${SENDER.email}.`).waitFor();
      await shots.take(senderPage, 'set-password-done');

      // The link works once.
      const again = await senderContext.newPage();
      await again.goto(link);
      await again.getByLabel('New password', { exact: true }).fill('a third passphrase here');
      await again.getByLabel('New password again').fill('a third passphrase here');
      await again.getByRole('button', { name: 'Save password' }).click();
      await again.getByRole('alert').filter({ hasText: 'This link has expired or was used already.' }).waitFor();
      await again.close();
    });

    test('the sender logs in, sees the envelope they sent, and is refused account management in words', async () => {
      await senderPage.getByRole('link', { name: 'Go to the login' }).click();
      await logInToConsole(senderPage, origin, SENDER);
      const token = await t.server.login(SENDER.email, SENDER.password);
      await sendAsUser(t.server, token, 'Rent agreement Jayanagar');
      await senderPage.reload();
      await senderPage.getByRole('link', { name: 'Rent agreement Jayanagar' }).waitFor();
      const nav = senderPage.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Envelopes' }).waitFor();
      for (const name of ['Developers', 'Operators', 'Users']) {
        assert.equal(await nav.getByRole('link', { name }).count(), 0, `no ${name} for a sender`);
      }
      await shots.take(senderPage, 'sender-envelopes');

      await senderPage.goto(`${origin}/app/developer`);
      await senderPage
        .getByRole('alert')
        .filter({ hasText: 'Your login (sender) cannot manage the account’s keys, webhooks and settings.' })
        .waitFor();
      await senderPage.goto(`${origin}/app/users`);
      await senderPage
        .getByRole('alert')
        .filter({ hasText: 'Your login (Sender) cannot manage the account’s users or read its audit log.' })
        .waitFor();
      // Refused in words before any call: no list, no invite form, nothing to press (issue 28, point 6).
      assert.equal(await senderPage.getByRole('button', { name: /invitation/i }).count(), 0);
      assert.equal(await senderPage.getByRole('table').count(), 0);
      await shots.take(senderPage, 'sender-users-refused');
      await senderPage.goto(`${origin}/app/operators`);
      await senderPage
        .getByRole('alert')
        .filter({ hasText: 'Your login (sender) cannot see the mail outbox, the mail server or the background jobs.' })
        .waitFor();
      await senderPage.goto(`${origin}/app/envelopes`);
      await senderPage.getByRole('link', { name: 'Rent agreement Jayanagar' }).waitFor();

      // "Only mine" (kept in the address) leaves out what an API key made; the envelope names who created it.
      const byKey = await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: { title: 'Lease made by key' },
      });
      assert.equal(byKey.statusCode, 201, byKey.body);
      await senderPage.reload();
      await senderPage.getByRole('link', { name: 'Lease made by key' }).waitFor();
      await senderPage.getByLabel('Only mine').check();
      await senderPage.waitForURL(/[?&]mine=true/);
      await senderPage.getByRole('link', { name: 'Lease made by key' }).waitFor({ state: 'detached' });
      await senderPage.getByRole('link', { name: 'Rent agreement Jayanagar' }).click();
      await senderPage.locator('.env-facts div').filter({ hasText: 'Created by' }).getByText(SENDER.email).waitFor();
    });

    test('deactivating the sender ends their session: their next action shows the login', async () => {
      await adminPage.reload();
      const row = adminPage.getByRole('row').filter({ hasText: SENDER.email });
      await row.getByText('Active').waitFor();
      await row.getByRole('button', { name: `Deactivate: ${SENDER.email}` }).click();
      const dialog = adminPage.getByRole('dialog', { name: `Deactivate ${SENDER.email}?` });
      await dialog.getByText('logged out everywhere at once').waitFor();
      await shots.take(adminPage, 'deactivate-confirm');
      await dialog.getByRole('button', { name: 'Deactivate' }).click();
      await adminPage
        .getByRole('status')
        .filter({ hasText: `${SENDER.email} is deactivated and logged out.` })
        .waitFor();
      await row.getByText('Deactivated').waitFor();

      await senderPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
      await senderPage.getByRole('button', { name: 'Log in' }).waitFor();
      await senderPage.getByText('Your session ended. Log in again.').waitFor();
      await senderPage.getByLabel('E-mail').fill(SENDER.email);
      await senderPage.getByLabel('Password', { exact: true }).fill(SENDER.password);
      await senderPage.getByRole('button', { name: 'Log in' }).click();
      await senderPage.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
      await shots.take(senderPage, 'sender-deactivated');
    });

    test('the admin changes their own password: a wrong current one is said on its field', async () => {
      await adminPage.locator('summary', { hasText: ADMIN.email }).click();
      await adminPage.getByRole('link', { name: 'Change password' }).click();
      await adminPage.getByRole('heading', { name: 'Change your password' }).waitFor();
      await adminPage.getByLabel('Current password').fill('not my password at all');
      await adminPage.getByLabel('New password', { exact: true }).fill('the new admin passphrase');
      await adminPage.getByLabel('New password again').fill('the new admin passphrase');
      await adminPage.getByRole('button', { name: 'Change password' }).click();
      await adminPage.getByRole('alert').filter({ hasText: 'the current password is not right' }).waitFor();
      await adminPage.getByLabel('Current password').fill(ADMIN.password);
      await adminPage.getByRole('button', { name: 'Change password' }).click();
      await adminPage.getByText('Your password is changed.').waitFor();
      await shots.take(adminPage, 'password-changed');
      await t.server.login(ADMIN.email, 'the new admin passphrase');
    });

    test('"Forgot password?" on the login page mails a reset link', async () => {
      const page = await senderContext.newPage();
      await page.goto(`${origin}/app/`);
      await page.getByRole('button', { name: 'Forgot password?' }).click();
      await page.getByLabel('E-mail').fill(ADMIN.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `If ${ADMIN.email} belongs to an active login, a reset link is on its way.` })
        .waitFor();
      await shots.take(page, 'forgot-sent');
      const mail = await t.server.ctx.db
        .selectFrom('outbox_mail')
        .select('subject')
        .where('to_address', '=', ADMIN.email)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(mail.subject, 'Reset your Mohar password');
      await page.close();
    });

    test('the audit log lists who did what, from where', async () => {
      await adminPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await adminPage.getByRole('link', { name: 'Audit log' }).click();
      await adminPage.getByRole('heading', { name: 'Audit log' }).waitFor();
      for (const action of ['Invited a user', 'Deactivated a user', 'Changed their password', 'Failed login']) {
        await adminPage.getByRole('cell', { name: action, exact: true }).first().waitFor();
      }
      await adminPage.getByRole('row').filter({ hasText: 'Deactivated a user' }).getByText(SENDER.email).waitFor();
      await shots.take(adminPage, 'audit-log', true);

      // The same pages in Hindi.
      await adminPage.getByLabel('Language / भाषा').selectOption('hi');
      await adminPage.getByRole('heading', { name: 'ऑडिट लॉग' }).waitFor();
      await adminPage.getByRole('link', { name: 'उपयोगकर्ताओं पर वापस' }).click();
      await adminPage.getByRole('heading', { name: 'उपयोगकर्ता', level: 1 }).waitFor();
      await adminPage.getByRole('row').filter({ hasText: SENDER.email }).getByText('निष्क्रिय').waitFor();
      await shots.take(adminPage, 'users-hindi');
      assert.deepEqual(errors, []);
    });
  });
}
