/**
 * End to end in Chromium (issue 26, "Done when"): a completed envelope whose stored current document is replaced
 * by a tampered copy (a revision rewriting the signer's price "INR 10,00,000" -> "INR 1" with a new appearance),
 * as someone with access to the data directory might. The envelope page's signature summary says what each
 * signature locks and that the change is not allowed; desktop and phone-width screenshots are kept.
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
import { DATABASES } from '../support/databases.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { rewriteTextField } from '../support/field-tamper.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { ensureConsoleBuilt } from '../support/renderer.js';
import { API, useTestServer, type TestServer, type TestAccount } from '../support/server.js';

ensureConsoleBuilt();

/** A one-signer envelope with a Price field, signed electronically and completed. */
async function completedWithPrice(server: TestServer, account: TestAccount) {
  const draft = await makeDraft(server, account.key, {
    pdf: makePdf({ pages: [{ text: 'Total price: INR 10,00,000' }] }),
    recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
    extraFields: (ids) => [
      { recipient_id: ids[0], field_type: 8, page_number: 1, x: 300, y: 300, width: 200, height: 24, label: 'Price' },
    ],
  });
  const title = await server.request('PATCH', `${API}/envelopes/${draft.id}`, {
    key: account.key,
    json: { title: 'Sale deed Indiranagar' },
  });
  assert.equal(title.statusCode, 200, title.body);
  await sendDraft(server, account.key, draft);
  const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
    key: account.key,
    json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
  });
  const base = `${API}/signing/${session.json().signing_url.split('/sign/')[1] as string}`;
  const price = (await server.request('GET', base)).json().fields.find((f: { label: string }) => f.label === 'Price');
  const act = await server.request('POST', base, {
    json: {
      action: 'sign',
      consent: true,
      fields: { [price.field_id]: 'INR 10,00,000' },
      signature: { kind: 'typed', text: 'Asha Rao' },
    },
  });
  assert.equal(act.statusCode, 200, act.body);
  assert.equal(act.json().envelope_status, 'completed');
  await server.runJobs();
  return { draft, valueField: `mohar.${draft.recipientIds[0]}.${price.field_id as string}` };
}

/** What someone with the data directory does: a tampered copy stored and made the current document. */
async function replaceCurrentDocument(server: TestServer, envelopeId: string, documentId: string, field: string) {
  const row = await server.ctx.db
    .selectFrom('envelope_documents')
    .select('current_sha256')
    .where('envelope_id', '=', envelopeId)
    .where('document_id', '=', documentId)
    .executeTakeFirstOrThrow();
  const final = await server.ctx.blobs.get(row.current_sha256!);
  const tampered = rewriteTextField(Buffer.from(final), field, 'INR 1', 'value and appearance');
  const sha256 = await server.ctx.blobs.put(tampered);
  await server.ctx.db
    .updateTable('envelope_documents')
    .set({ current_sha256: sha256 })
    .where('envelope_id', '=', envelopeId)
    .where('document_id', '=', documentId)
    .execute();
}

for (const kind of DATABASES) {
  describe(`the console's signature summary of a tampered document in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    let browser: Browser;
    let page: Page;
    let errors: string[];
    const shots = screenshots(`console-field-locks${kind === 'sqlite' ? '' : `-${kind}`}`);

    before(async () => {
      origin = await listenOnLoopback(t.server);
      browser = await launchChromium();
      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      errors = collectPageErrors(page);
    });
    after(() => browser?.close());

    test('the price rewritten after completion: the summary says what each signature locks and that the change is not allowed', async () => {
      const { draft, valueField } = await completedWithPrice(t.server, t.account);
      await logInToConsole(page, origin, t.account, `/envelopes/${draft.id}`);
      await page.getByText('Every signature holds (3 checked)').waitFor();
      assert.equal(await page.locator('.env-lock-broken').count(), 0, 'nothing is flagged before the change');
      // Asha's signature locks her price; the completion lock finds nothing left to lock.
      await page.locator('.env-signature-item dd').filter({ hasText: 'the fields of Asha Rao (1)' }).waitFor();
      await page.locator('.env-signature-item strong').filter({ hasText: 'Completion lock' }).waitFor();

      await replaceCurrentDocument(t.server, draft.id, draft.documentId, valueField);
      await page.reload();
      await page.getByText('Not every signature holds').waitFor();
      const broken = page.locator('.env-lock-broken');
      await broken.first().waitFor();
      assert.equal(await broken.count(), 1, 'one signature locks the price: Asha’s own');
      for (const text of await broken.allTextContents()) {
        assert.match(text, /Changed after this signature although it locks them: the fields of Asha Rao \(1\)\./);
        assert.match(text, /This change is not allowed/);
      }
      await page.locator('.env-signature-item').filter({ hasText: 'Asha Rao' }).locator('.env-lock-broken').waitFor();
      await shots.take(page, 'tampered-summary', true);
      await checkPhoneWidth(page, shots, 'tampered-summary', [broken.first()]);

      // In Hindi too.
      await page.getByLabel('Language / भाषा').selectOption('hi');
      await page.getByText('यह बदलाव अनुमत नहीं है').first().waitFor();
      await shots.take(page, 'tampered-summary-hindi', true);
      await page.getByLabel('Language / भाषा').selectOption('en');

      const api = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/signatures`,
        {
          key: t.account.key,
        },
      );
      const summary = api.json().signatures as { field_lock: { changed: string[] } | null }[];
      assert.deepEqual(
        summary.filter((s) => (s.field_lock?.changed.length ?? 0) > 0).map((s) => s.field_lock!.changed),
        [[valueField]],
      );
      // The console asks for its session before the login (401): a resource error, not a script error.
      assert.deepEqual(
        errors.filter((e) => !e.startsWith('Failed to load resource')),
        [],
      );
    });
  });
}
