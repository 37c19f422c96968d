/**
 * Compose on a phone (390 px): what a phone user does there (review the title, documents and recipients, send)
 * fits the screen without sideways scrolling (the confirmation before sending included), and the field editor
 * (desktop-first) does not break the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  checkPhoneWidth,
  launchChromium,
  listenOnLoopback,
  newContext,
  PHONE,
  screenshots,
} from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { makeDraft } from '../support/envelopes.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { useTestServer } from '../support/server.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

describe('compose on a phone', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('console-compose-phone');

  test('a draft with a document, two recipients and their fields: reviewable and sendable at 390 px', async () => {
    const origin = await listenOnLoopback(t.server);
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [
        { name: 'Asha Rao', email: 'asha@example.com' },
        { name: 'Ravi Kumar Venkataraman', email: 'ravi.kumar.venkataraman@example.co.in' },
      ],
    });
    const page = await (await newContext(browser, { viewport: PHONE })).newPage();
    await logInToConsole(page, origin, t.account, `/envelopes/${draft.id}/edit`);
    await page.getByText('ravi.kumar.venkataraman@example.co.in').first().waitFor();
    const send = page.getByRole('button', { name: 'Send', exact: true });
    await send.waitFor();
    assert.equal(await send.isEnabled(), true, 'a complete draft can be sent from a phone');
    await checkPhoneWidth(page, shots, 'compose', [
      page.getByText('Asha Rao').first(),
      page.getByText('ravi.kumar.venkataraman@example.co.in').first(),
      send,
    ]);
    await shots.take(page, 'compose-full', true);

    // The confirmation before sending fits the phone too: the long address wraps, both buttons are on screen.
    await send.click();
    const confirm = page.getByRole('dialog', { name: 'Send this envelope now?' });
    await checkPhoneWidth(page, shots, 'send-confirm', [
      confirm.getByText('ravi.kumar.venkataraman@example.co.in'),
      confirm.getByRole('button', { name: 'Send now' }),
      confirm.getByRole('button', { name: 'Cancel' }),
    ]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });

    // And the question of the template's name.
    await page.getByRole('button', { name: 'Save as template' }).click();
    const naming = page.getByRole('dialog', { name: 'Save as template' });
    await checkPhoneWidth(page, shots, 'template-name', [
      naming.getByLabel('Template name'),
      naming.getByRole('button', { name: 'Save template' }),
    ]);
    await page.keyboard.press('Escape');
    await naming.waitFor({ state: 'detached' });
  });
});
