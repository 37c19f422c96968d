/**
 * The console's header on a phone: brand and a Menu button in one row on every page (a four-row header took a
 * quarter of a 844 px screen); the menu opens over the page, its links navigate and close it. On a desktop the
 * navigation shows as before and there is no Menu button.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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

const PAGES = ['/envelopes', '/templates', '/bulk-sends', '/developer', '/operators', '/users'];
// One row: the brand and the Menu button (40 px touch targets) with the header's padding.
const ONE_ROW = 64;

const headerHeight = (page: Page): Promise<number> =>
  page.locator('header.console-header').evaluate((header) => header.getBoundingClientRect().height);

describe('the console header on a phone and a desktop', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('console-header');
  let origin: string;
  let page: Page;
  before(async () => {
    origin = await listenOnLoopback(t.server);
    page = await (await newContext(browser, { viewport: PHONE })).newPage();
    await logInToConsole(page, origin, t.account);
  });

  test('on a phone every page has a one-row header; the menu opens, navigates and closes', async () => {
    const menu = page.getByRole('button', { name: 'Menu' });
    for (const path of PAGES) {
      await page.goto(`${origin}/app${path}`);
      await menu.waitFor();
      const height = await headerHeight(page);
      assert.ok(height <= ONE_ROW, `${path}: the header is ${height} px high`);
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false, `${path}: nav folded`);
    }
    await page.goto(`${origin}/app/envelopes`);
    await menu.waitFor();
    await shots.take(page, 'phone-closed');

    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    const templates = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' });
    await templates.waitFor();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await shots.take(page, 'phone-open');
    assert.ok(
      await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'),
      'the open menu fits the screen',
    );

    await templates.click();
    await page.waitForURL(/\/app\/templates/);
    assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'navigating closes the menu');
    assert.equal(await templates.isVisible(), false);
  });

  test('on a desktop the navigation shows and there is no Menu button', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${origin}/app/envelopes`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Menu' }).isVisible(), false);
    await shots.take(page, 'desktop');
  });
});
