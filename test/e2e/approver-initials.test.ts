/**
 * End to end in Chromium (issue 16, points 2 and 3): an approver fills their Text field and approves, and the
 * downloaded PDF carries the value under a valid seal; an electronic signer draws their initials once with the
 * mouse, both Initials fields show them, and the downloaded PDF draws that picture in both.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { verifyPdf } from '../../pdf/verify/index.js';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
} from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { appearanceImages, formValues } from '../support/form-reading.js';
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

/** A stroke across a drawing area with real mouse moves. */
async function drawOn(page: Page, area: string): Promise<void> {
  const pad = page.getByRole('img', { name: area });
  const box = (await pad.boundingBox())!;
  await page.mouse.move(box.x + 30, box.y + box.height * 0.7);
  await page.mouse.down();
  for (let i = 1; i <= 16; i++) {
    await page.mouse.move(box.x + 30 + i * 12, box.y + box.height * (0.7 - 0.4 * Math.abs(Math.sin(i / 3))), {
      steps: 2,
    });
  }
  await page.mouse.up();
}

describe('an approver fills and approves; a signer draws initials once', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('approver-initials');
  let origin: string;
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });
  const link = async (envelopeId: string, recipientId: string) => {
    const session = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: recipientId, mode: 'redirect' },
    });
    assert.equal(session.statusCode, 201, session.body);
    return onServer(origin, session.json().signing_url);
  };

  test('the approver types a PO number and approves; the downloaded PDF carries it, sealed', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [
        { name: 'Asha Rao', email: 'asha@example.com' },
        { name: 'Ravi Kumar', email: 'ravi@example.com', role: 'approver' },
      ],
      pdf: makePdf({ pages: [{ text: 'Purchase order' }] }),
      extraFields: (ids) => [
        {
          recipient_id: ids[1],
          field_type: 8,
          page_number: 1,
          x: 300,
          y: 300,
          width: 200,
          height: 24,
          label: 'PO number',
          required: true,
        },
      ],
    });
    await sendDraft(t.server, t.account.key, draft);
    const signerToken = (await link(draft.id, draft.recipientIds[0]!)).split('/sign/')[1]!;
    const signed = await t.server.request('POST', `${API}/signing/${signerToken}`, {
      json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
    });
    assert.equal(signed.statusCode, 200, signed.body);

    const page = await (await newContext(browser, { viewport: { width: 1200, height: 900 } })).newPage();
    const errors = collectPageErrors(page);
    await page.goto(await link(draft.id, draft.recipientIds[1]!));
    await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
    assert.equal(await page.getByRole('status').filter({ hasText: 'fields left' }).textContent(), '1 of 1 fields left');
    await page.getByRole('checkbox', { name: /I have read this document/ }).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('alert').filter({ hasText: /field/ }).waitFor();
    await page.getByLabel('PO number (required)').fill('PO-4711');
    await shots.take(page, 'approver-filled');
    await checkPhoneWidth(page, shots, 'approver-filled', [
      page.getByLabel('PO number (required)'),
      page.getByRole('button', { name: 'Approve' }),
    ]);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'You have approved' }).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: /^Download / }).click();
    const pdf = readFileSync((await (await downloading).path())!);
    await shots.take(page, 'approver-done');
    await checkPhoneWidth(page, shots, 'approver-done', [page.getByRole('link', { name: /^Download / })]);
    assert.deepEqual(errors, []);
    await page.context().close();

    assert.ok(qpdfCheck(pdf).ok, 'qpdf --check');
    const verdicts = pdfsigVerdicts(pdf);
    assert.deepEqual(
      verdicts.valid,
      [true, true, true, true],
      `certification, signature, approval, completion lock: ${verdicts.output}`,
    );
    const report = verifyPdf(pdf);
    assert.equal(report.valid, true);
    assert.match(report.signatures.at(-2)!.reason ?? '', /Approved by Ravi Kumar/);
    assert.equal(report.signatures.at(-1)!.field, 'Mohar completion');
    const fieldId = (
      await t.server.ctx.db
        .selectFrom('fields')
        .select('id')
        .where('envelope_id', '=', draft.id)
        .where('label', '=', 'PO number')
        .executeTakeFirstOrThrow()
    ).id;
    const value = Object.entries(formValues(pdf)).find(([name]) => name.includes(fieldId))?.[1];
    assert.equal(value, 'PO-4711', "the approver's value is in the downloaded PDF");
  });

  test('the signer draws initials once; both Initials fields show them, on the page and in the PDF', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Meera Iyer', email: 'meera@example.com' }],
      pdf: makePdf({ pages: [{ text: 'Lease, page one' }, { text: 'Lease, page two' }] }),
      extraFields: (ids) => [
        { recipient_id: ids[0], field_type: 2, page_number: 1, x: 420, y: 700, width: 80, height: 36 },
        { recipient_id: ids[0], field_type: 2, page_number: 2, x: 420, y: 700, width: 80, height: 36 },
      ],
    });
    await sendDraft(t.server, t.account.key, draft);
    const page = await (await newContext(browser, { viewport: { width: 1200, height: 900 } })).newPage();
    const errors = collectPageErrors(page);
    await page.goto(await link(draft.id, draft.recipientIds[0]!));
    await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
    assert.equal(
      await page.getByRole('status').filter({ hasText: 'fields left' }).textContent(),
      '3 of 3 fields left',
      'the signature and two Initials fields',
    );
    const initialsButtons = page.getByRole('button', { name: /^Initials \(required\)/ });
    assert.equal(await initialsButtons.count(), 2);

    await initialsButtons.first().click();
    const dialog = page.getByRole('dialog', { name: 'Your initials' });
    await dialog.waitFor();
    await drawOn(page, 'Initials drawing area');
    await shots.take(page, 'initials-drawn');
    await checkPhoneWidth(page, shots, 'initials-drawn', [
      dialog.getByRole('img', { name: 'Initials drawing area' }),
      dialog.getByRole('button', { name: 'Use these initials' }),
    ]);
    await dialog.getByRole('button', { name: 'Use these initials' }).click();
    await dialog.waitFor({ state: 'detached' });
    const adopted = page.getByRole('button', { name: /^Initials \(required\): Your initials \(change\)/ });
    assert.equal(await adopted.count(), 2, 'both Initials fields show the adopted initials');
    for (const image of await adopted.locator('img').all()) {
      await image.scrollIntoViewIfNeeded();
      const size = await image.evaluate((img) => ({
        width: (img as unknown as { naturalWidth: number }).naturalWidth,
        height: (img as unknown as { naturalHeight: number }).naturalHeight,
      }));
      assert.ok(size.width > 100 && size.height > 20, `the drawn stroke is shown (${size.width}×${size.height})`);
    }
    await shots.take(page, 'initials-page-2');
    assert.equal(await page.getByRole('status').filter({ hasText: 'fields left' }).textContent(), '1 of 3 fields left');

    await page.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
    const signature = page.getByRole('dialog', { name: 'Your signature' });
    await signature.getByRole('tab', { name: 'Type' }).click();
    await signature.getByRole('button', { name: 'Use this signature' }).click();
    await page.getByRole('checkbox', { name: /I agree to sign/ }).check();
    await adopted.first().scrollIntoViewIfNeeded();
    await shots.take(page, 'initials-ready');
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByRole('heading', { name: 'You have signed' }).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: /^Download / }).click();
    const pdf = readFileSync((await (await downloading).path())!);
    writeFileSync(join(shots.dir, 'initials-signed.pdf'), pdf); // to look at: pdftoppm -r 60 -png initials-signed.pdf
    assert.deepEqual(errors, []);
    await page.context().close();

    assert.ok(qpdfCheck(pdf).ok, 'qpdf --check');
    const verdicts = pdfsigVerdicts(pdf);
    assert.deepEqual(verdicts.valid, [true, true, true], verdicts.output);
    const ids = (
      await t.server.ctx.db
        .selectFrom('fields')
        .select('id')
        .where('envelope_id', '=', draft.id)
        .where('field_type', '=', 2)
        .execute()
    ).map((r) => r.id);
    assert.equal(ids.length, 2);
    const pictures = ids.map((id) => appearanceImages(pdf, id));
    for (const [i, widgets] of pictures.entries()) {
      assert.equal(widgets.length, 1, `Initials field ${i + 1} has one widget`);
      assert.equal(widgets[0]!.length, 1, `Initials field ${i + 1} draws one image`);
      assert.ok(widgets[0]![0]!.width > 100, `Initials field ${i + 1} draws the drawn picture`);
    }
    assert.deepEqual(pictures[0], pictures[1], 'the same picture in both');
    const signer = await t.server.ctx.db
      .selectFrom('recipients')
      .select('act_details')
      .where('id', '=', draft.recipientIds[0]!)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(signer.act_details!).initials, 'drawn');
  });
});
