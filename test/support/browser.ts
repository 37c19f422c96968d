/**
 * End-to-end helpers: Debian's Chromium through playwright-core (one browser per test file), a test server
 * listening on loopback, screenshots kept under test-results/e2e/, and tiny parent pages on other ports for
 * the embedding tests.
 *
 *   const browser = await launchChromium();
 *   const origin = await listenOnLoopback(server);       // http://127.0.0.1:PORT
 *   await page.goto(onServer(origin, signing_url));       // signing_url carries MOHAR_BASE_URL's origin
 *   const shots = screenshots('suite');
 *   await shots.take(page, 'filled');                     // test-results/e2e/suite/01-filled.png
 *   const parent = await servePage(); parent.html = '…';  // another origin (another port) on loopback
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core';
import type { TestServer } from './server.js';

export const CHROMIUM = process.env.MOHAR_TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const RESULTS = new URL('../../test-results/e2e/', import.meta.url).pathname;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/**
 * A browser context whose pages accept functions from tests compiled by tsx: esbuild names inner functions
 * with a __name() helper that page.evaluate() would otherwise not find.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  return context;
}

/** Makes the test server's app listen on 127.0.0.1 (a free port); returns its origin. Closed by server.close(). */
export async function listenOnLoopback(server: TestServer): Promise<string> {
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/** The same path on the listening server (links are built with the configured MOHAR_BASE_URL). */
export function onServer(origin: string, url: string): string {
  const parsed = new URL(url);
  return `${origin}${parsed.pathname}${parsed.search}`;
}

/** Numbered screenshots of one suite's steps (the suite's folder starts empty on every run). */
export function screenshots(suite: string) {
  const dir = join(RESULTS, suite);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let n = 0;
  return {
    dir,
    async take(page: Page, step: string, fullPage = false): Promise<string> {
      const file = join(dir, `${String(++n).padStart(2, '0')}-${step}.png`);
      await page.screenshot({ path: file, fullPage });
      return file;
    },
  };
}

/** A phone's screen in CSS pixels (an iPhone 12–15). */
export const PHONE = { width: 390, height: 844 } as const;

/**
 * The page as it is now, at a phone's width: it needs no sideways scrolling and each of `controls` lies inside
 * the screen's width (reachable by scrolling down at most). A screenshot is kept as `step`; the page's own
 * viewport comes back afterwards, so the flow around it goes on unchanged.
 */
export async function checkPhoneWidth(
  page: Page,
  shots: ReturnType<typeof screenshots>,
  step: string,
  controls: readonly Locator[] = [],
): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize(PHONE);
  try {
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(
      Number(overflow) <= 1,
      `${step}: the page scrolls sideways by ${String(overflow)} px at ${PHONE.width} px wide`,
    );
    for (const control of controls) {
      await control.scrollIntoViewIfNeeded();
      const box = await control.boundingBox();
      assert.ok(box, `${step}: ${control.toString()} is shown at a phone's width`);
      assert.ok(
        box.x >= 0 && box.x + box.width <= PHONE.width + 1,
        `${step}: ${control.toString()} lies outside the screen (x ${box.x}, width ${box.width})`,
      );
    }
    await shots.take(page, `${step}-phone`);
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/**
 * A one-page HTTP server (a parent page that embeds the signing page); its origin differs by port. Set `html` before
 * loading it.
 */
export async function servePage(): Promise<{ origin: string; html: string; close(): Promise<void> }> {
  const page = { origin: '', html: '<!doctype html><title>empty</title>', close: () => Promise.resolve() };
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  page.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  page.close = () => new Promise((resolve) => server.close(() => resolve()));
  return page;
}

/** Failures the page logged: console errors and uncaught exceptions (CSP violations show up here). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
