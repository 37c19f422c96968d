/**
 * End to end in Chromium: two electronic signers in sequence on the hosted page. The first fills a text field
 * and draws a signature with the mouse, the second types one; both consent and sign. The envelope completes,
 * and the PDF downloaded from the done page passes pdfsig (both signatures and the certification at send valid)
 * and qpdf --check.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { verifyPdf } from '../../pdf/verify/index.js';
import { collectPageErrors, launchChromium, listenOnLoopback, onServer, screenshots } from '../support/browser.js';
import { DATABASES } from '../support/databases.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { makePdf, qpdfCheck } from '../support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

/** Draws a wavy stroke across the signature pad with real mouse moves. */
async function drawSignature(page: Page): Promise<void> {
  const pad = page.getByRole('img', { name: 'Signature drawing area' });
  const box = (await pad.boundingBox())!;
  await page.mouse.move(box.x + 30, box.y + box.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 24; i++) {
    await page.mouse.move(box.x + 30 + i * 14, box.y + box.height * (0.6 - 0.25 * Math.sin(i / 2.5)), { steps: 2 });
  }
  await page.mouse.up();
}

for (const kind of DATABASES) {
  describe(`two electronic signers in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    before(async () => {
      origin = await listenOnLoopback(t.server);
    });

    test('fill, draw, type, consent, sign; the downloaded PDF has two valid signatures', async () => {
      const shots = screenshots(`electronic-${kind}`);
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com' },
        ],
        pdf: makePdf({ pages: [{ text: 'Rental agreement, page one' }, { text: 'Page two: addresses' }] }),
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 2,
            x: 72,
            y: 120,
            width: 240,
            height: 22,
            label: 'Address',
          },
          { recipient_id: ids[0], field_type: 4, page_number: 2, x: 72, y: 160, width: 240, height: 22 },
          {
            recipient_id: ids[1],
            field_type: 8,
            page_number: 2,
            x: 72,
            y: 220,
            width: 240,
            height: 22,
            label: 'Witness',
          },
          { recipient_id: ids[1], field_type: 3, page_number: 2, x: 72, y: 260, width: 140, height: 22 },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const link = async (recipientId: string) => {
        const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: t.account.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        });
        assert.equal(session.statusCode, 201, session.body);
        return onServer(origin, session.json().signing_url);
      };

      // Signer 1: text field, drawn signature.
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(await link(draft.recipientIds[0]!));
      await page.getByRole('heading', { name: 'Agreement' }).waitFor();
      await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
      assert.equal(
        await page.getByRole('status').filter({ hasText: 'fields left' }).textContent(),
        '2 of 2 fields left',
      );
      // The page's text is in the DOM (pdf.js text layer), for screen readers and find in page.
      await page.locator('.textLayer').getByText('Rental agreement, page one').waitFor({ state: 'attached' });
      await shots.take(page, 'signer1-opened');

      await page.getByRole('button', { name: 'Next field' }).click();
      await page.getByLabel('Address (required)').fill('12 MG Road, Pune');
      assert.equal(
        await page.getByRole('status').filter({ hasText: 'fields left' }).textContent(),
        '1 of 2 fields left',
      );
      const fullName = page.getByRole('note', { name: /Full name, filled in automatically: Asha Rao/ });
      assert.equal(await fullName.count(), 1, 'auto-filled values are previewed');

      await page.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Your signature' });
      await dialog.waitFor();
      await drawSignature(page);
      await shots.take(page, 'signer1-drawn');
      await dialog.getByRole('button', { name: 'Use this signature' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('status').filter({ hasText: 'fields' }).textContent(), 'All fields are filled');

      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      assert.match(
        (await page
          .getByRole('alert')
          .filter({ hasText: /accept/ })
          .textContent()) ?? '',
        /accept the statement/,
        'no act without consent',
      );
      await page.getByRole('checkbox', { name: /I agree to sign this document electronically/ }).check();
      await shots.take(page, 'signer1-ready');
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      await page.getByRole('heading', { name: 'You have signed' }).waitFor();
      assert.match((await page.textContent('main')) ?? '', /Others act next/);
      await shots.take(page, 'signer1-done');
      assert.deepEqual(errors, [], 'no console errors (CSP violations included)');
      await context.close();

      // Signer 2 (on a phone-sized screen): sees signer 1's value read-only, types a signature.
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
      });
      const second = await phone.newPage();
      const secondErrors = collectPageErrors(second);
      await second.goto(await link(draft.recipientIds[1]!));
      await second.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
      assert.equal(
        await second.getByRole('note', { name: 'Address, filled by another recipient: 12 MG Road, Pune' }).count(),
        1,
      );
      await second.getByLabel('Witness (required)').fill('Meera Iyer');
      await second.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
      const typeDialog = second.getByRole('dialog', { name: 'Your signature' });
      await typeDialog.getByRole('tab', { name: 'Type' }).click();
      assert.equal(await typeDialog.getByLabel('Type your name').inputValue(), 'Ravi Kumar');
      await shots.take(second, 'signer2-typed');
      await typeDialog.getByRole('button', { name: 'Use this signature' }).click();
      await second.getByRole('checkbox', { name: /I agree to sign/ }).check();
      await shots.take(second, 'signer2-ready');
      await second.getByRole('button', { name: 'Sign', exact: true }).click();
      await second.getByRole('heading', { name: 'You have signed' }).waitFor();
      await shots.take(second, 'signer2-done');

      const downloading = second.waitForEvent('download');
      await second.getByRole('link', { name: /^Download / }).click();
      const pdf = readFileSync((await (await downloading).path())!);
      assert.deepEqual(secondErrors, []);
      await phone.close();

      assert.ok(pdf.subarray(0, draft.pdf.length).equals(draft.pdf), 'the upload is a prefix of the download');
      assert.ok(qpdfCheck(pdf).ok, 'qpdf --check');
      const verdicts = pdfsigVerdicts(pdf);
      // The certification at send, the two signers' signatures and the completion lock (issue 26).
      assert.deepEqual(verdicts.valid, [true, true, true, true], verdicts.output);
      const [certification, ...rest] = verifyPdf(pdf).signatures;
      const signers = rest.slice(0, -1);
      assert.equal(rest.at(-1)?.field, 'Mohar completion');
      assert.equal(certification?.docMdp, 2, 'the document was certified at send (DocMDP P=2)');
      assert.deepEqual(
        signers.map((sig) => sig.name),
        ['Asha Rao', 'Ravi Kumar'],
        'each signature names its signer',
      );
      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.equal(status.status, 'completed');
      const details = await t.server.ctx.db
        .selectFrom('recipients')
        .select(['name', 'act_details'])
        .where('envelope_id', '=', draft.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        details.map((r) => JSON.parse(r.act_details!).signature),
        ['drawn', 'typed'],
      );
      assert.equal(JSON.parse(details[1]!.act_details!).signature_text, 'Ravi Kumar');
      // Each signature's appearance is the picture the page made (the drawn stroke, the typed name in Kalam).
      const images = pdf.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? [];
      assert.ok(images.length >= 2, `two signature pictures in the PDF (found ${images.length} image objects)`);
    });
  });
}
