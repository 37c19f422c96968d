/**
 * Hindi on a machine without a Devanagari font: the console and the signing page carry their own
 * (renderer/src/devanagari-font.css, Noto Sans Devanagari). Chromium says which font drew a node's glyphs
 * (DevTools CSS.getPlatformFontsForNode): Hindi text must be drawn with the bundled font, Latin text not.
 * Screenshots at desktop and phone width.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, listenOnLoopback, newContext, onServer, PHONE, screenshots } from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureConsoleBuilt, ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';

ensureRendererBuilt();
ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const DEVANAGARI = /[\u0900-\u097F]/;

interface UsedFont {
  readonly familyName: string;
  readonly isCustomFont: boolean;
  readonly glyphCount: number;
}

/** The fonts Chromium drew the first element's own text with, for an element whose text matches `text`. */
async function fontsDrawing(page: Page, text: RegExp): Promise<UsedFont[]> {
  // Browser code as text: the tests compile without the DOM library.
  const marker = await page.evaluate<string | null>(`(() => {
    const pattern = new RegExp(${JSON.stringify(text.source)});
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent && pattern.test(node.textContent ?? '') && parent.getClientRects().length > 0) {
        parent.setAttribute('data-font-probe', '1');
        return node.textContent;
      }
    }
    return null;
  })()`);
  assert.ok(marker, `no visible text matching ${text}`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '[data-font-probe]' });
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await page.evaluate(`document.querySelector('[data-font-probe]').removeAttribute('data-font-probe')`);
  await cdp.detach();
  return fonts;
}

async function assertHindiDrawnWithBundledFont(page: Page): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => true)');
  const hindi = await fontsDrawing(page, DEVANAGARI);
  assert.ok(
    hindi.some((f) => f.familyName === 'Noto Sans Devanagari' && f.isCustomFont && f.glyphCount > 0),
    `Hindi drawn with ${JSON.stringify(hindi)}`,
  );
  const loaded = await page.evaluate<string[]>(
    `[...document.fonts].filter((f) => f.family.includes('Mohar Devanagari')).map((f) => f.status)`,
  );
  assert.ok(loaded.includes('loaded'), `bundled faces: ${JSON.stringify(loaded)}`);
}

describe('Hindi is drawn with the bundled Devanagari font', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('devanagari-font');
  let origin: string;
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });

  for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
    test(`the console's login page in Hindi at ${viewport.width} px`, async () => {
      const page = await (await newContext(browser, { viewport, locale: 'hi-IN' })).newPage();
      await page.goto(`${origin}/app/`);
      await page.waitForFunction(`/[\u0900-\u097F]/.test(document.body.innerText)`);
      await assertHindiDrawnWithBundledFont(page);
      await shots.take(page, `console-login-hi-${viewport.width}`);
      await page.close();
    });

    test(`the signing page in Hindi at ${viewport.width} px`, async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'आशा राव', email: 'asha@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(session.statusCode, 201, session.body);
      const page = await (await newContext(browser, { viewport, locale: 'hi-IN' })).newPage();
      await page.goto(onServer(origin, session.json().signing_url));
      await page.waitForFunction(
        `document.documentElement.lang === 'hi' && /[\u0900-\u097F]/.test(document.body.innerText)`,
      );
      await assertHindiDrawnWithBundledFont(page);
      await shots.take(page, `signing-page-hi-${viewport.width}`);
      await page.close();
    });
  }

  test('Latin text keeps the system font: the bundled face covers Devanagari only', async () => {
    const page = await (
      await newContext(browser, { viewport: { width: 1280, height: 800 }, locale: 'en-GB' })
    ).newPage();
    await page.goto(`${origin}/app/`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const latin = await fontsDrawing(page, /Log in/);
    assert.ok(latin.length > 0 && latin.every((f) => f.familyName !== 'Noto Sans Devanagari'), JSON.stringify(latin));
    await page.close();
  });
});
