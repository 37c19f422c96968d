/**
 * End to end in Chromium (SQLite): the office console's login, the envelope list among 500 envelopes (search,
 * filters in the address, paging, phone width), the envelope detail (remind, signing link, void; downloads and
 * signatures of a completed one), and both interactive API docs pages, with and without a trailing slash.
 * The APIs these pages use are tested on SQLite and PostgreSQL in test/server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { collectPageErrors, launchChromium, listenOnLoopback, newContext, screenshots } from '../support/browser.js';
import { logInToConsole } from '../support/console.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { API, useTestServer, type TestServer } from '../support/server.js';
import { DATABASES } from '../support/databases.js';

ensureConsoleBuilt();

const SEEDED = 500;
const DAY = 86_400;

/** 500 drafts through the API, 20 at a time: 100 of them dated 40 days back (for the date filter). */
async function seedDrafts(server: TestServer, key: string): Promise<void> {
  const create = async (i: number) => {
    const special = i === 42;
    const body = special
      ? {
          title: 'Tenancy renewal Koramangala',
          external_id: 'ref-0042',
          recipients: [{ name: 'Meera Iyer', email: 'meera.iyer@example.com' }],
        }
      : {
          title: `Service agreement ${i}`,
          external_id: `bulk-${i}`,
          recipients: [
            { name: `Client ${i}`, email: `client${i}@example.com` },
            { name: 'Office Witness', email: 'witness@example.com' },
          ],
        };
    const response = await server.request('POST', `${API}/envelopes`, { key, json: body });
    assert.equal(response.statusCode, 201, response.body);
  };
  server.clock.advance(-40 * DAY);
  for (let i = 0; i < 100; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => create(i + j)));
  server.clock.advance(40 * DAY);
  for (let i = 100; i < SEEDED; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => create(i + j)));
}

/** A sent envelope with a title of its own (set on the draft before sending). */
async function sentEnvelope(
  server: TestServer,
  key: string,
  title: string,
  recipients: { name: string; email: string }[],
) {
  const draft = await makeDraft(server, key, { recipients, routing_order: 'parallel' });
  const patch = await server.request('PATCH', `${API}/envelopes/${draft.id}`, { key, json: { title } });
  assert.equal(patch.statusCode, 200, patch.body);
  await sendDraft(server, key, draft);
  return draft;
}

async function rowTitles(page: Page): Promise<string[]> {
  return page.locator('table.envelope-table tbody a.envelope-title').allTextContents();
}

/**
 * The list's titles (sorted) once they are `expected`: a search changes the address before the list has begun
 * loading, so the previous results can still be on screen for a moment. Fails with the last titles seen.
 */
async function settledTitles(page: Page, expected: readonly string[]): Promise<void> {
  const want = [...expected].sort();
  let seen: string[] = [];
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await page.waitForTimeout(100)) {
    seen = (await rowTitles(page)).sort();
    if (JSON.stringify(seen) === JSON.stringify(want)) return;
  }
  assert.deepEqual(seen, want);
}

/** Waits until the list shows exactly `count` rows. */
async function waitForRows(page: Page, count: number): Promise<void> {
  const rows = page.locator('table.envelope-table tbody tr');
  await rows.nth(count - 1).waitFor();
  await rows.nth(count).waitFor({ state: 'detached' });
}

async function search(page: Page, text: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search envelopes' }).fill(text);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForURL((url) => url.searchParams.get('q') === text);
  await page.locator('.envelope-list:not(.is-loading), .empty-state').first().waitFor();
}

for (const kind of DATABASES) {
  describe(`office console envelopes in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    const shots = screenshots(`console-envelopes${kind === 'sqlite' ? '' : `-${kind}`}`);

    before(async () => {
      origin = await listenOnLoopback(t.server);
      browser = await launchChromium();
      context = await newContext(browser, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      page = await context.newPage();
      errors = collectPageErrors(page);
    });
    after(() => browser?.close());

    test('log in (a wrong password is said in words), reload keeps the session, log out returns to the login', async () => {
      await page.goto(`${origin}/app/envelopes`);
      await page.getByLabel('E-mail').fill(t.account.email);
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
      await shots.take(page, 'login-wrong-password');

      await logInToConsole(page, origin, t.account);
      // First visit, nothing sent yet: the empty state says how to start, with the button to do it.
      await page.getByRole('heading', { name: 'No envelopes yet' }).waitFor();
      await page.getByText('Upload a PDF to send your first envelope').waitFor();
      assert.equal(
        await page.locator('.empty-state').getByRole('link', { name: 'New envelope' }).getAttribute('href'),
        '/app/envelopes/new',
      );
      await shots.take(page, 'first-visit-empty');

      await page.reload();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      await page.getByRole('heading', { name: 'No envelopes yet' }).waitFor();

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Log out' }).count(), 0, 'logout revoked the session');
      await shots.take(page, 'logged-out');
    });

    test('search and filter find the right envelopes among 500; paging; the filters live in the address', async () => {
      const started = Date.now();
      await seedDrafts(t.server, t.account.key);
      await sentEnvelope(t.server, t.account.key, 'Loan deed Whitefield', [
        { name: 'Kiran Rao', email: 'kiran@example.com' },
      ]);
      await sentEnvelope(t.server, t.account.key, 'Partnership deed Indiranagar', [
        { name: 'Sunil Das', email: 'sunil@example.com' },
      ]);
      console.log(`seeded ${SEEDED + 2} envelopes in ${Date.now() - started} ms`);

      await logInToConsole(page, origin, t.account);
      await page.locator('table.envelope-table tbody tr').nth(24).waitFor();
      assert.equal((await rowTitles(page)).length, 25);
      assert.equal((await rowTitles(page))[0], 'Partnership deed Indiranagar', 'newest first');
      await shots.take(page, 'list-first-page');
      await page.getByRole('button', { name: 'Load more' }).click();
      await page.locator('table.envelope-table tbody tr').nth(49).waitFor();
      assert.equal((await rowTitles(page)).length, 50);

      // Search: a recipient's name, an e-mail from its start, the external reference, a title word.
      await search(page, 'meera');
      await settledTitles(page, ['Tenancy renewal Koramangala']);
      await shots.take(page, 'search-recipient-name');
      await search(page, 'meera.iyer@ex');
      await settledTitles(page, ['Tenancy renewal Koramangala']);
      await search(page, 'ref-0042');
      await settledTitles(page, ['Tenancy renewal Koramangala']);
      await search(page, 'deed');
      await settledTitles(page, ['Loan deed Whitefield', 'Partnership deed Indiranagar']);
      await search(page, 'nobody-has-this-name');
      await page.getByRole('heading', { name: 'No envelopes match' }).waitFor();
      await shots.take(page, 'search-no-match');
      await page.getByRole('button', { name: 'Clear search and filters' }).first().click();
      await page.locator('table.envelope-table tbody tr').nth(24).waitFor();

      // Status filter (In progress = sent): the two sent ones; the address carries it; back and forward work.
      await page.getByText('Filters', { exact: true }).click();
      await page.getByRole('checkbox', { name: 'In progress' }).check();
      await page.waitForURL(/status=sent/);
      await page.locator('.envelope-list:not(.is-loading)').waitFor();
      await settledTitles(page, ['Loan deed Whitefield', 'Partnership deed Indiranagar']);
      await shots.take(page, 'filter-status-in-progress');
      await page.goBack();
      await page.waitForURL((url) => !url.search.includes('status='));
      await page.locator('table.envelope-table tbody tr').nth(24).waitFor();
      await page.goForward();
      await page.waitForURL(/status=sent/);
      await waitForRows(page, 2);
      assert.equal(await page.getByRole('checkbox', { name: 'In progress' }).isChecked(), true);

      // A bookmarked address: drafts created until 30 days ago are the 100 back-dated ones (4 pages of 25 and none
      // more).
      const until = new Date(Date.now() - 30 * DAY * 1000).toISOString().slice(0, 10);
      await page.goto(`${origin}/app/envelopes?status=draft&created_to=${until}`);
      await page.locator('table.envelope-table tbody tr').nth(24).waitFor();
      for (let shown = 25; shown < 100; shown += 25) {
        await page.getByRole('button', { name: 'Load more' }).click();
        await page
          .locator('table.envelope-table tbody tr')
          .nth(shown + 24)
          .waitFor();
      }
      await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
      const titles = await rowTitles(page);
      assert.equal(titles.length, 100);
      assert.ok(
        titles.every(
          (title) =>
            /^(Service agreement \d+|Tenancy renewal Koramangala)$/.test(title) &&
            (title.startsWith('Tenancy') || Number(title.split(' ').pop()) < 100),
        ),
        'only the back-dated drafts',
      );
      assert.equal(await page.getByLabel('Created until').inputValue(), until);
      await shots.take(page, 'filter-date-bookmarked');

      // Template filter: the two envelopes made from a template, picked by the template's name.
      const source = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Seller', email: 'seller@example.com' }],
      });
      const template = await t.server.request('POST', `${API}/templates`, {
        key: t.account.key,
        json: { source_envelope_id: source.id, name: 'Standard lease' },
      });
      assert.equal(template.statusCode, 201, template.body);
      const { template_id: templateId, roles } = template.json() as {
        template_id: string;
        roles: { role_key: string }[];
      };
      for (const title of ['Lease from template A', 'Lease from template B']) {
        const made = await t.server.request('POST', `${API}/templates/${templateId}/instantiate`, {
          key: t.account.key,
          headers: { 'idempotency-key': title },
          json: { title, recipients: { [roles[0]!.role_key]: { name: 'Tenant', email: 'tenant@example.com' } } },
        });
        assert.equal(made.statusCode, 201, made.body);
      }
      await page.goto(`${origin}/app/envelopes`);
      await page.getByText('Filters', { exact: true }).click();
      await page.getByLabel('Template').selectOption({ label: 'Standard lease' });
      await page.waitForURL(new RegExp(`template_id=${templateId}`));
      await waitForRows(page, 2);
      assert.deepEqual((await rowTitles(page)).sort(), ['Lease from template A', 'Lease from template B']);
      await shots.take(page, 'filter-template');

      // Phone width: no sideways scrolling; the hidden columns fold under the title.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${origin}/app/envelopes`);
      await page.locator('table.envelope-table tbody tr').nth(24).waitFor();
      assert.ok(
        await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'),
        'fits a phone screen',
      );
      await shots.take(page, 'list-phone-width');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    test('envelope detail: remind, a signing link to copy, void with a reason', async () => {
      const draft = await sentEnvelope(t.server, t.account.key, 'Sale deed HSR Layout', [
        { name: 'Asha Rao', email: 'asha@example.com' },
        { name: 'Ravi Kumar', email: 'ravi@example.com' },
      ]);
      await page.goto(`${origin}/app/envelopes?q=hsr`);
      await page.getByRole('link', { name: 'Sale deed HSR Layout' }).click();
      await page.getByRole('heading', { name: 'Sale deed HSR Layout' }).waitFor();
      await page.getByText(/Audit trail intact: each event is sealed to the one before \(\d+ checked\)/).waitFor();
      await page
        .getByRole('row', { name: /Asha Rao/ })
        .getByText('Their turn')
        .waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'Continue editing' }).count(),
        0,
        'a sent envelope is not edited',
      );
      await shots.take(page, 'detail-sent');

      await page.getByRole('button', { name: 'Remind' }).click();
      await page.getByText('Reminder sent to asha@example.com, ravi@example.com.').waitFor();
      await page.getByRole('listitem').filter({ hasText: 'Reminder sent' }).waitFor();
      await page.getByRole('button', { name: 'Remind' }).click();
      await page.getByText(/asha@example\.com was reminded less than an hour ago/).waitFor();
      await shots.take(page, 'detail-reminded');

      await page
        .getByRole('row', { name: /Ravi Kumar/ })
        .getByRole('button', { name: 'Copy signing link' })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Signing link for Ravi Kumar' });
      const url = dialog.getByLabel('Link (hand it to this person only)');
      await url.waitFor();
      assert.match(await url.inputValue(), /\/sign\/[\w-]{20,}$/);
      assert.equal(await url.getAttribute('readonly'), '');
      await dialog.getByText(/It expires in 15 minutes/).waitFor();
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await dialog.getByText('Copied.').waitFor();
      await shots.take(page, 'detail-signing-link');
      await dialog.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Void…' }).click();
      const voiding = page.getByRole('dialog', { name: 'Void this envelope?' });
      await voiding.getByRole('button', { name: 'Void envelope' }).click();
      await voiding.getByText('Write a reason for voiding.').waitFor();
      await voiding.getByLabel('Reason (the recipients see it)').fill('Buyer withdrew');
      await shots.take(page, 'detail-void-dialog');
      await voiding.getByRole('button', { name: 'Void envelope' }).click();
      await page.getByText('The envelope was voided.').waitFor();
      await page.locator('.envelope-actions').getByText('This envelope is finished').waitFor();
      assert.equal(
        await page.evaluate('document.activeElement?.textContent'),
        'The envelope was voided.',
        'focus is on what happened, not lost with the Void button',
      );
      await page.locator('.page-head .badge').filter({ hasText: 'Voided' }).waitFor();
      await page.getByRole('listitem').filter({ hasText: 'Voided' }).waitFor();
      await page.getByText('This envelope is finished').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Remind' }).count(), 0);
      assert.equal(
        await page.getByText(/was reminded less than an hour ago/).count(),
        0,
        'the reminder note went with the state it was about',
      );
      await page
        .getByRole('row', { name: /Ravi Kumar/ })
        .getByText('Did not act')
        .waitFor();
      await shots.take(page, 'detail-voided');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.ok(
        await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'),
        'the detail fits a phone screen',
      );
      await shots.take(page, 'detail-phone-width', true);
      await page.setViewportSize({ width: 1280, height: 900 });
      const stored = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.equal(stored.status, 'voided');
      assert.equal(stored.status_reason, 'Buyer withdrew');
    });

    test('a completed envelope: the signed PDF and the certificate download; a draft offers "Continue editing"', async () => {
      const draft = await sentEnvelope(t.server, t.account.key, 'Consent form Jayanagar', [
        { name: 'Asha Rao', email: 'asha@example.com' },
      ]);
      const link = (
        await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: t.account.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1];
      const act = await t.server.request('POST', `${API}/signing/${link}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(act.statusCode, 200, act.body);
      await t.server.runJobs();

      await page.goto(`${origin}/app/envelopes/${draft.id}`);
      await page.locator('.page-head .badge').filter({ hasText: 'Completed' }).waitFor();
      const [pdf] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download signed PDF' }).click(),
      ]);
      const [certificate] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download certificate of completion' }).click(),
      ]);
      for (const download of [pdf, certificate]) {
        const stream = await download.createReadStream();
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        assert.equal(Buffer.concat(chunks).subarray(0, 5).toString(), '%PDF-', download.suggestedFilename());
      }
      assert.match(certificate.suggestedFilename(), /^certificate-of-completion-.*\.pdf$/);
      await page.getByRole('listitem').filter({ hasText: 'Certificate of completion issued' }).waitFor();
      // The verifier's summary: the certification at send, Asha's signature and the completion lock (issue 26), all
      // holding, dates in words.
      await page.getByText('Every signature holds (3 checked)').waitFor();
      const signatures = page.locator('.env-signature-item');
      assert.deepEqual(await signatures.locator('strong').allTextContents(), [
        await signatures.first().locator('strong').textContent(),
        'Asha Rao',
        'Completion lock',
      ]);
      assert.equal(
        await signatures.filter({ hasText: 'form filling and signing' }).count(),
        1,
        'the certification says what it allows',
      );
      assert.equal(
        await page
          .locator('.env-signature-summary')
          .getByText(/D:20\d+/)
          .count(),
        0,
        'PDF dates are shown as dates',
      );
      await shots.take(page, 'detail-completed', true);

      const fresh = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Draft Person', email: 'draft@example.com' }],
      });
      await page.goto(`${origin}/app/envelopes/${fresh.id}`);
      assert.equal(
        await page.getByRole('link', { name: 'Continue editing' }).getAttribute('href'),
        `/app/envelopes/${fresh.id}/edit`,
      );
      await page
        .getByRole('row', { name: /Draft Person/ })
        .getByText('After sending')
        .waitFor();
      await page.getByText('can be downloaded once everyone has acted').waitFor();
      await shots.take(page, 'detail-draft');
    });

    test('errors are said in words; the pages speak Hindi', async () => {
      await page.goto(`${origin}/app/envelopes/0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const said = (await alert.locator('p').textContent()) ?? '';
      const expected = (
        await t.server.request('GET', `${API}/envelopes/0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f`, { key: t.account.key })
      ).json().detail as string;
      // The console's words first, the server's own explanation beneath them (issue 28, point 6).
      assert.ok(said.startsWith('This envelope does not exist in your account.'), said);
      assert.equal(await alert.locator('.refusal-detail').textContent(), expected, "the server's detail beneath");
      await page.getByRole('link', { name: '← All envelopes' }).waitFor();
      await shots.take(page, 'detail-not-found');

      // A forged audit row: the timeline says the check failed and where.
      const forged = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Forged Person', email: 'forged@example.com' }],
      });
      // With the append-only trigger out of the way, as someone with DDL rights could (migration 0004's triggers).
      const db = t.server.ctx.db;
      const forge = () =>
        db
          .updateTable('audit_events')
          .set({ details: '{"title":"Something else"}' })
          .where('envelope_id', '=', forged.id)
          .execute();
      if (kind === 'postgres') {
        await sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change`.execute(db);
        try {
          await forge();
        } finally {
          await sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_change`.execute(db);
        }
      } else {
        await sql`DROP TRIGGER audit_events_no_update`.execute(db);
        try {
          await forge();
        } finally {
          await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(
            db,
          );
        }
      }
      await page.goto(`${origin}/app/envelopes/${forged.id}`);
      await page.getByText(/The audit trail check FAILED/).waitFor();
      await shots.take(page, 'detail-chain-broken');

      await page.goto(`${origin}/app/envelopes?status=sent`);
      await page.getByLabel('Language / भाषा').selectOption('hi');
      await page.getByRole('heading', { name: 'लिफ़ाफ़े' }).waitFor();
      await page.getByRole('checkbox', { name: 'प्रगति में' }).waitFor();
      await shots.take(page, 'list-hindi');
      await page.getByLabel('Language / भाषा').selectOption('en');
      await page.getByRole('heading', { name: 'Envelopes' }).waitFor();
    });

    test('both API docs pages render their operations, with and without a trailing slash; the help menu links to them', async () => {
      const docs = await context.newPage();
      const docsErrors = collectPageErrors(docs);
      const pages = [
        { path: '/backend/api/v1/docs', operation: ['POST', '/envelopes'] },
        { path: '/backend/othercompanyapi/docs', operation: ['POST', '/auth/login/'] },
      ];
      for (const { path, operation } of pages) {
        for (const url of [path, `${path}/`]) {
          await docs.goto(`${origin}${url}`);
          const summary = docs
            .locator('.opblock-summary')
            .filter({ has: docs.locator(`.opblock-summary-method:text-is("${operation[0]}")`) })
            .filter({ has: docs.locator(`[data-path="${operation[1]}"]`) });
          await summary.first().waitFor({ timeout: 20_000 });
          assert.ok(await summary.first().isVisible(), `${url}: ${operation.join(' ')} is listed`);
          await shots.take(docs, `docs${url.replaceAll('/', '-')}`);
        }
      }
      assert.deepEqual(docsErrors, []);
      await docs.close();

      await page.goto(`${origin}/app/envelopes`);
      await page.getByText('Help', { exact: true }).click();
      const hrefs = await Promise.all(
        (await page.locator('details.menu', { hasText: 'Help' }).locator('a').all()).map((link) =>
          link.getAttribute('href'),
        ),
      );
      assert.deepEqual(hrefs, ['/backend/api/v1/docs/', '/backend/othercompanyapi/docs/']);
      const [opened] = await Promise.all([
        context.waitForEvent('page'),
        page.getByRole('link', { name: 'Envelope API v1 (interactive docs)' }).click(),
      ]);
      await opened.locator('[data-path="/envelopes"]').first().waitFor({ timeout: 20_000 });
      await opened.close();
      // The refused login and the session check before logging in answer 401; the browser logs those loads.
      assert.deepEqual(
        errors.filter((e) => !e.startsWith('Failed to load resource')),
        [],
      );
    });
  });
}
