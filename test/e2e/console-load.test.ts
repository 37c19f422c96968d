/**
 * Issue 28, point 7, in Chromium: opening the console logs no error in the browser's console, neither on the login
 * page (the silent session check finds no cookie: 204, not a 401) nor on a logged-in page loaded afresh. And on a
 * server that refuses private webhook receivers (MOHAR_WEBHOOK_ALLOW_PRIVATE unset) the URL hint says they are
 * refused, in English and Hindi.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { launchChromium, listenOnLoopback, newContext, PHONE, screenshots } from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { useTestServer } from '../support/server.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

/** Every console error and uncaught exception of the page, as text. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return errors;
}

describe('the console on load', () => {
  const t = useTestServer('sqlite');
  let origin: string;
  const shots = screenshots('console-load');
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });

  test('no console error on /app/login, nor on a logged-in page loaded afresh', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = consoleErrors(page);
    const refreshes: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/auth/session/refresh/')) refreshes.push(response.status());
    });
    await page.goto(`${origin}/app/login`);
    await page.getByLabel('E-mail').waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(refreshes, [204], 'the silent check asked once and heard "nobody"');
    assert.deepEqual(errors, [], 'the login page logs nothing');
    await shots.take(page, 'login');

    await logInToConsole(page, origin, t.account, '/envelopes');
    await page.reload();
    await page.locator('header.console-header').waitFor();
    await page.waitForLoadState('networkidle');
    // The login helper opens /app/envelopes logged out (204 again); the reload resumes from the cookie (200).
    assert.deepEqual(refreshes, [204, 204, 200]);
    assert.deepEqual(errors, [], 'the envelope list, loaded afresh, logs nothing');
    await shots.take(page, 'envelopes');
    await context.close();
  });

  test('webhook URL hint: private receivers refused on this server (English, Hindi, phone)', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logInToConsole(page, origin, t.account, '/developer/webhooks');
    const hint = 'https, on a public address: loopback, private-network and metadata addresses are refused.';
    await page.getByText(hint).waitFor();
    assert.equal(await page.getByText('This server is set to accept private receivers').count(), 0);
    const described = await page.getByLabel('Webhook URL').evaluate((input) => {
      const ids = (input.getAttribute('aria-describedby') ?? '').split(' ');
      return ids.map((id: string) => input.ownerDocument.getElementById(id)?.textContent ?? '').join(' ');
    });
    assert.match(described, /addresses are refused/, 'the hint describes the field for a screen reader');
    await shots.take(page, 'webhook-hint');
    await page.getByRole('combobox', { name: 'Language / भाषा' }).selectOption('hi');
    await page.getByText('लूपबैक, निजी नेटवर्क और मेटाडेटा पते अस्वीकार किए जाते हैं').waitFor();
    await page.setViewportSize(PHONE);
    await shots.take(page, 'webhook-hint-hi-phone');
    await context.close();
  });
});
