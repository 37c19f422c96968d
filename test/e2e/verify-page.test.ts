/**
 * Issue 28, point 8, in Chromium: the public /verify page, without login, with a document this server completed
 * (through the API), a tampered copy of it (one appended revision drawing on page 1) and a PDF signed elsewhere (a
 * test PKI outside the trust anchors). English and Hindi; screenshots at desktop (1280) and phone (390) width.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  screenshots,
} from '../support/browser.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { useTestServer } from '../support/server.js';
import { completedDocument, signedElsewhere, tamperPageContent } from '../support/verify-fixtures.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe('the /verify page in Chromium', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('verify-page');
  let origin: string;
  let page: Page;
  let errors: string[];
  const files: Record<string, string> = {};
  before(async () => {
    origin = await listenOnLoopback(t.server);
    const completed = await completedDocument(t.server, t.account.key);
    const elsewhere = await signedElsewhere('Meera Iyer');
    for (const [name, pdf] of [
      ['completed.pdf', completed.pdf],
      ['tampered.pdf', tamperPageContent(completed.pdf)],
      ['elsewhere.pdf', elsewhere.pdf],
    ] as const) {
      files[name] = join(shots.dir, name);
      writeFileSync(files[name], pdf);
    }
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-IN' })).newPage();
    errors = collectPageErrors(page);
  });

  const upload = async (name: string) => {
    await page.locator('input[type=file]').setInputFiles(files[name]!);
    await page.locator('.verify-verdict').waitFor();
  };

  test('a completed Mohar document: every signature intact, sealed by this server, with the audit summary', async () => {
    const response = await page.goto(`${origin}/verify`);
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Verify a signed PDF' }).waitFor();
    await upload('completed.pdf');
    await page
      .getByText('Every signature is intact and nothing was changed that the signatures do not allow.')
      .waitFor();
    await page.getByRole('heading', { name: 'Completed on this server' }).waitFor();
    await page.getByText("this server's own seal").first().waitFor();
    await page.getByText('hash chain intact', { exact: false }).waitFor();
    assert.ok(await page.getByText('Asha Rao', { exact: false }).first().isVisible());
    await page.getByRole('heading', { name: 'What this check cannot know' }).waitFor();
    await page.getByText('this page does not ask the certificate authorities', { exact: false }).waitFor();
    await shots.take(page, 'completed', true);
    await checkPhoneWidth(page, shots, 'completed', [page.getByText('Check another PDF')]);
  });

  test('a tampered copy: the change after each signature is not allowed, and no envelope is shown', async () => {
    await upload('tampered.pdf');
    await page.getByText('Warning: at least one signature does not hold', { exact: false }).waitFor();
    assert.ok((await page.getByText('page content or other parts of the document: NOT allowed').count()) >= 2);
    await page.getByText('is not a document this server completed', { exact: false }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Completed on this server' }).count(), 0);
    await shots.take(page, 'tampered', true);
    await checkPhoneWidth(page, shots, 'tampered');
  });

  test('signed elsewhere: intact, but not chained to a CCA India root; in Hindi too', async () => {
    await upload('elsewhere.pdf');
    await page.getByRole('heading', { name: /Signature 1: Meera Iyer/ }).waitFor();
    await page.getByText('does not chain to a CCA India root or a configured anchor').waitFor();
    await page.getByText('nobody can tell here whether it was revoked', { exact: false }).waitFor();
    await shots.take(page, 'elsewhere', true);
    await checkPhoneWidth(page, shots, 'elsewhere');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('hi');
    await page.getByRole('heading', { level: 1, name: 'हस्ताक्षरित PDF की जाँच करें' }).waitFor();
    await page.getByText('किसी CCA India रूट या कॉन्फ़िगर किए गए एंकर तक नहीं जुड़ता').waitFor();
    await page.getByRole('heading', { name: 'यह जाँच क्या नहीं जान सकती' }).waitFor();
    await shots.take(page, 'elsewhere-hindi', true);
    await checkPhoneWidth(page, shots, 'elsewhere-hindi');
    assert.deepEqual(errors, [], 'no console errors or CSP violations');
  });
});
