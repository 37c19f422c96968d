/**
 * Retention in the office console, in Chromium (issue 29, point 6): an admin sets the account's policy under
 * Operators → Retention (a bad number explained, then saved), gives a template its own period in the template
 * editor, places and releases a legal hold on an envelope's page, and sees, once the purge job ran, what remains of
 * a purged envelope (its fingerprints and the certificate, no download buttons); the pages in Hindi. Screenshots at
 * desktop and phone width. The envelope's finish is moved into the past (finishedDaysAgo) rather than the clock, so
 * the console's login stays valid.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { purgeDueEnvelopes } from '../../server/domain/retention/purge-job.js';
import { completedEnvelope, finishedDaysAgo } from '../support/retention.js';
import { createSaleTemplate } from '../support/templates.js';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  screenshots,
} from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { DATABASES } from '../support/databases.js';
import type { Draft } from '../support/envelopes.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';

ensureConsoleBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

for (const kind of DATABASES) {
  describe(`console retention in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    let page: Page;
    let errors: string[];
    let envelope: Draft;
    const shots = screenshots(`console-retention${kind === 'sqlite' ? '' : `-${kind}`}`);
    const get = async (path: string) =>
      (await t.server.request('GET', `${API}${path}`, { key: t.account.key })).json() as Record<string, unknown>;
    before(async () => {
      origin = await listenOnLoopback(t.server);
      envelope = await completedEnvelope(t.server, t.account.key);
      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      errors = collectPageErrors(page);
      await logInToConsole(page, origin, t.account, '/operators/retention');
    });

    test('Operators → Retention: off at first; a bad number is explained; 30 days saved', async () => {
      await page.getByRole('heading', { name: 'Retention', level: 1 }).waitFor();
      await page.getByText('Now: documents are kept for ever.').waitFor();
      await page.getByRole('radio', { name: 'Delete documents after a number of days' }).check();
      const days = page.getByLabel('Days after the envelope finished');
      await days.fill('0');
      await page.getByText('Enter a whole number of days from 1 to 36500.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Save policy' }).isDisabled(), true);
      await days.fill('30');
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.getByText('Now: documents are deleted 30 days after an envelope finished.').waitFor();
      await page.getByText('Saved.').waitFor();
      assert.deepEqual(await get('/account/retention'), { retention_days: 30 });
      await shots.take(page, 'policy-saved');
      await checkPhoneWidth(page, shots, 'policy', [page.getByRole('button', { name: 'Save policy' })]);
    });

    test("the template editor: the template's own period", async () => {
      const template = await createSaleTemplate(t.server, t.account.key, 'Loan file');
      await page.goto(`${origin}/app/templates/${template.id}/edit`);
      const field = page.getByLabel('Retention (days)');
      await field.fill('3650');
      await page.getByText("Empty: the account's policy.").waitFor();
      await shots.take(page, 'template-retention');
      await page.getByRole('button', { name: 'Save as a new version' }).click();
      await page.getByRole('heading', { name: 'Version 2' }).waitFor();
      const saved = (await get(`/templates/${template.id}`)) as { settings: { retention_days?: number } };
      assert.equal(saved.settings.retention_days, 3650);
    });

    test('a legal hold on the envelope page: placed with a reason, then released', async () => {
      await page.goto(`${origin}/app/envelopes/${envelope.id}`);
      const card = page.getByRole('region', { name: 'Legal hold' });
      await card.getByText('No legal hold.').waitFor();
      await card.getByLabel('Reason').fill('Dispute 114');
      await card.getByRole('button', { name: 'Place legal hold' }).click();
      await page.getByText('Legal hold placed.').waitFor();
      await card.getByText(/On legal hold since/).waitFor();
      await card.getByText('Dispute 114').waitFor();
      assert.equal(((await get(`/envelopes/${envelope.id}`)).legal_hold as { reason: string }).reason, 'Dispute 114');
      await shots.take(page, 'hold-placed', true);
      await checkPhoneWidth(page, shots, 'hold', [card.getByRole('button', { name: 'Release legal hold' })]);
      await card.getByRole('button', { name: 'Release legal hold' }).click();
      await page.getByText('Legal hold released.').waitFor();
      await card.getByText('No legal hold.').waitFor();
    });

    test('a purged envelope shows what remains instead of download buttons', async () => {
      await finishedDaysAgo(t.server, envelope.id, 31);
      assert.deepEqual((await purgeDueEnvelopes(t.server.ctx)).purged, [envelope.id]);
      await page.goto(`${origin}/app/envelopes/${envelope.id}`);
      const card = page.getByRole('region', { name: 'Documents deleted' });
      await card.getByText(/The documents were deleted on .* under the retention policy/).waitFor();
      const view = (await get(`/envelopes/${envelope.id}`)) as {
        documents: { sha256: string; final_sha256: string }[];
      };
      await card.getByText(view.documents[0]!.sha256).waitFor();
      await card.getByText(view.documents[0]!.final_sha256).waitFor();
      await card.getByRole('button', { name: 'Download certificate of completion' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Download signed PDF' }).count(), 0);
      assert.equal(await page.getByRole('region', { name: 'Legal hold' }).count(), 0, 'no hold on a purged envelope');
      await page.getByText('Documents deleted under the retention policy').first().waitFor(); // the timeline
      await shots.take(page, 'purged', true);
      await checkPhoneWidth(page, shots, 'purged', [
        card.getByRole('button', { name: 'Download certificate of completion' }),
      ]);
    });

    test('in Hindi', async () => {
      await page.getByLabel('Language / भाषा').selectOption('hi');
      await page.getByRole('region', { name: 'दस्तावेज़ हटाए गए' }).waitFor();
      await shots.take(page, 'purged-hi', true);
      await page.goto(`${origin}/app/operators/retention`);
      await page.getByRole('heading', { name: 'प्रतिधारण', level: 1 }).waitFor();
      await shots.take(page, 'policy-hi');
      await page.getByLabel('Language / भाषा').selectOption('en');
      // The one 401 is the session probe before logging in, as in the other console suites.
      assert.deepEqual(
        errors.filter((e) => !/Failed to load resource: the server responded with a status of 401/.test(e)),
        [],
      );
    });
  });
}
