/**
 * Operators → Mail server in Chromium (issue 28, point 2), on SQLite: an admin finds the page in the Operators tabs,
 * is told mail is kept, types a bad host and sender (explained on the fields), saves a server with a password (the
 * field stays empty, "leave empty to keep"), sends a test mail that arrives at the test SMTP server, points it at a
 * closed port and reads the failure in words; the page at a phone's width; under MOHAR_SMTP_URL the page is
 * read-only and says why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  screenshots,
} from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { useTestServer } from '../support/server.js';
import { closedSmtpUrl, startSmtp, type SmtpTestServer } from '../support/smtp.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const SMTP_PASSWORD = 'app-password-1234';

describe('console mail server page in Chromium', () => {
  const t = useTestServer('sqlite', { MOHAR_MAIL_ALLOW_PRIVATE: '1' });
  const shots = screenshots('console-mail-server');
  let smtp: SmtpTestServer;
  let page: Page;
  let errors: string[];
  before(async () => {
    smtp = await startSmtp({ auth: { user: 'office', pass: SMTP_PASSWORD } });
    const origin = await listenOnLoopback(t.server);
    const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    errors = collectPageErrors(page);
    await logInToConsole(page, origin, t.account, '/operators');
  });
  after(() => smtp?.close());

  test('set up, checked as typed, saved with a password that is never shown again', async () => {
    await page.getByRole('navigation', { name: 'Operators' }).getByRole('link', { name: 'Mail server' }).click();
    await page.getByText('No mail server is set up: mail is kept in the outbox').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send test mail' }).count(), 0, 'nothing to test yet');
    await shots.take(page, 'none', true);

    await page.getByLabel('SMTP server').fill('smtp://mail.example.com:587');
    await page.getByLabel('Sender address').fill('not an address');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Enter the host name of the SMTP server, without smtp:// and without the port.').waitFor();
    await page.getByText('Enter one e-mail address.').waitFor();
    await shots.take(page, 'checked', true);

    await page.getByLabel('SMTP server').fill('127.0.0.1');
    await page.getByLabel('Port').fill(new URL(smtp.url).port);
    await page.getByLabel('Security').selectOption('none');
    await page.getByLabel('User name').fill('office');
    await page.getByLabel('Password', { exact: true }).fill(SMTP_PASSWORD);
    await page.getByLabel('Sender address').fill('sign@office.example');
    await page.getByLabel('Sender name').fill('Sharma & Co.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The next mail goes out through this server.').waitFor();
    await page.getByText('A password is saved. Leave empty to keep it').waitFor();
    assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'never prefilled');
    assert.ok(!(await page.content()).includes(SMTP_PASSWORD), 'the password is nowhere in the page');
    await shots.take(page, 'saved', true);
  });

  test('a test mail arrives; a closed port is explained in words', async () => {
    await page.getByLabel('Send to').fill('check@office.example');
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await page
      .getByText(/The test mail was accepted by 127\.0\.0\.1:\d+\. Look in the mailbox of check@office\.example/)
      .waitFor();
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.subject, 'Mohar test mail');
    assert.match(mail!.headers.get('from') ?? '', /Sharma & Co\..*sign@office\.example/);
    await shots.take(page, 'test-sent', true);

    const closed = new URL(await closedSmtpUrl()).port;
    await page.getByLabel('Port').fill(closed);
    await page.getByText('Save your changes first: the test uses the saved settings.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The next mail goes out through this server.').waitFor();
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await page.getByText(`The test mail was not sent through 127.0.0.1:${closed}.`).waitFor();
    await page.getByText(`Nothing accepts connections at 127.0.0.1:${closed} (connection refused).`).waitFor();
    await shots.take(page, 'test-failed', true);
    await checkPhoneWidth(page, shots, 'test-failed', [
      page.getByRole('button', { name: 'Save' }),
      page.getByRole('button', { name: 'Send test mail' }),
    ]);
  });

  test('the page in Hindi, and no page errors but the session resume before logging in', async () => {
    await page.getByRole('combobox', { name: 'Language / भाषा' }).selectOption('hi');
    await page.getByRole('heading', { name: 'मेल सर्वर', level: 1 }).waitFor();
    await page.getByText('एक पासवर्ड सहेजा गया है।').waitFor();
    await shots.take(page, 'saved-hi', true);
    await page.getByRole('combobox', { name: 'Language / भाषा' }).selectOption('en');
    const unexpected = errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of 401/.test(e),
    );
    assert.deepEqual(unexpected, []);
  });
});

describe('console mail server page under MOHAR_SMTP_URL', () => {
  // Nothing is sent here: the page only shows the environment's server.
  const t = useTestServer('sqlite', {
    MOHAR_SMTP_URL: 'smtp://operator:secret@127.0.0.1:2525',
    MOHAR_MAIL_FROM: 'Mohar Cloud <mail@cloud.example>',
  });
  const shots = screenshots('console-mail-server-environment');

  test('the environment wins: shown read-only, with the reason', async () => {
    const origin = await listenOnLoopback(t.server);
    const context = await newContext(browser, { viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await logInToConsole(page, origin, t.account, '/operators/mail');
    await page.getByText('This server’s own settings (MOHAR_SMTP_URL) choose the mail server').waitFor();
    assert.equal(await page.getByLabel('SMTP server').inputValue(), '127.0.0.1');
    assert.equal(await page.getByLabel('SMTP server').isDisabled(), true);
    assert.equal(await page.getByLabel('Sender address').inputValue(), 'mail@cloud.example');
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
    assert.ok(!(await page.content()).includes('secret'));
    await shots.take(page, 'environment-phone', true);
    await context.close();
  });
});
