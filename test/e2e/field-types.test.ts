/**
 * End to end in Chromium: every field type filled with the keyboard alone ("Next field" and the native
 * controls), an uploaded signature, the redirect to return_url, an approver's flow, and drawing with a finger
 * on a touch screen.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { makePng } from '../support/png.js';
import {
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
  servePage,
} from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { drawWithFinger } from '../support/touch.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const SIGNATURE_PNG = makePng(120, 40, (x, y) =>
  Math.abs(y - 20 - Math.round(8 * Math.sin(x / 9))) < 3 ? [30, 30, 120, 255] : [255, 255, 255, 255],
);

/** The field id of the focused control (inside its overlay). */
const focusedField = (page: Page) =>
  page
    .locator('body')
    .evaluate(
      (body) => body.ownerDocument.activeElement?.closest('[data-field-id]')?.getAttribute('data-field-id') ?? null,
    );

describe('every field type, keyboard only; an approver; touch drawing', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('field-types');
  let origin: string;
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });

  test('a signer fills every type with the keyboard, uploads a signature and returns to return_url; the approver approves', async () => {
    const back = await servePage();
    back.html = '<!doctype html><title>Back at the integrator</title><h1>Thanks, back home</h1>';
    try {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com', role: 'approver' },
        ],
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 1,
            x: 300,
            y: 40,
            width: 220,
            height: 22,
            label: 'Address',
          },
          {
            recipient_id: ids[0],
            field_type: 10,
            page_number: 1,
            x: 300,
            y: 80,
            width: 120,
            height: 22,
            label: 'Amount',
          },
          {
            recipient_id: ids[0],
            field_type: 11,
            page_number: 1,
            x: 300,
            y: 120,
            width: 150,
            height: 22,
            label: 'Start date',
          },
          {
            recipient_id: ids[0],
            field_type: 9,
            page_number: 1,
            x: 300,
            y: 160,
            width: 18,
            height: 18,
            label: 'I have read the annex',
            required: true,
          },
          {
            recipient_id: ids[0],
            field_type: 12,
            page_number: 1,
            x: 300,
            y: 200,
            width: 150,
            height: 22,
            label: 'Payment',
            options: ['Monthly', 'Quarterly'],
          },
          {
            recipient_id: ids[0],
            field_type: 13,
            page_number: 1,
            x: 300,
            y: 240,
            width: 160,
            height: 22,
            label: 'Pets allowed',
            options: ['Yes', 'No'],
          },
          { recipient_id: ids[0], field_type: 2, page_number: 1, x: 300, y: 280, width: 60, height: 22 },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const returnUrl = `${back.origin}/back`;
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect', return_url: returnUrl },
      });
      const view = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      const fieldId = (label: string) =>
        view.documents[0].fields.find((f: { label: string | null }) => f.label === label).field_id as string;

      const page = await (await newContext(browser, { viewport: { width: 1200, height: 900 } })).newPage();
      const errors = collectPageErrors(page);
      await page.goto(onServer(origin, session.json().signing_url));
      await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
      const left = () =>
        page
          .getByRole('status')
          .filter({ hasText: /fields? (left|are filled)/ })
          .textContent();
      assert.equal(
        await left(),
        '8 of 8 fields left',
        'signature, text, number, date, checkbox, dropdown, radio, initials',
      );

      const next = page.getByRole('button', { name: 'Next field' });
      const nextByKeyboard = async () => {
        await next.focus();
        await page.keyboard.press('Enter');
      };
      // Reading order: the Signature (40,40), then the column at x=300 from the top.
      await nextByKeyboard();
      assert.equal(
        await page.locator('body').evaluate((body) => body.ownerDocument.activeElement?.getAttribute('aria-label')),
        'Signature (required): Sign here',
      );
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Address'));
      await page.keyboard.type('12 MG Road, Pune');
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Amount'));
      await page.keyboard.type('12a');
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Start date'));
      await page.getByLabel('Start date (required)').fill('2026-12-01');
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('I have read the annex'));
      await page.keyboard.press('Space');
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Payment'));
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Pets allowed'));
      await page.keyboard.press('ArrowRight');
      assert.equal(await left(), '3 of 8 fields left', '"12a" is not a number: Amount still counts');
      // The Initials field: Enter opens the same dialog as the signature, titled for initials; typed ones
      // start as the initials of the name.
      await nextByKeyboard();
      assert.match(
        await page
          .locator('body')
          .evaluate((body) => body.ownerDocument.activeElement?.getAttribute('aria-label') ?? ''),
        /^Initials \(required\): Initial here/,
      );
      await page.keyboard.press('Enter');
      const initialsDialog = page.getByRole('dialog', { name: 'Your initials' });
      await initialsDialog.waitFor();
      assert.deepEqual(
        await initialsDialog.getByRole('tab').allTextContents(),
        ['Draw', 'Type'],
        'initials are drawn or typed',
      );
      await page.keyboard.press('ArrowRight');
      assert.equal(await initialsDialog.getByLabel('Type your initials').inputValue(), 'AR');
      await initialsDialog.getByRole('button', { name: 'Use these initials' }).focus();
      await page.keyboard.press('Enter');
      await initialsDialog.waitFor({ state: 'detached' });
      assert.equal(await left(), '2 of 8 fields left');
      // Past the last field, Next field starts again from the top: the Signature, then Amount.
      await nextByKeyboard();
      await nextByKeyboard();
      assert.equal(await focusedField(page), fieldId('Amount'));
      await page.keyboard.press('Control+A');
      await page.keyboard.type('1250,50');
      assert.equal(await left(), '1 of 8 fields left');
      await shots.take(page, 'keyboard-filled');

      // The signature: Enter opens the dialog; arrow keys move between its tabs.
      await nextByKeyboard();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Your signature' });
      await dialog.waitFor();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      assert.equal(await dialog.getByRole('tab', { name: 'Upload' }).getAttribute('aria-selected'), 'true');
      await dialog
        .getByLabel(/Choose an image of your signature/)
        .setInputFiles({ name: 'signature.png', mimeType: 'image/png', buffer: SIGNATURE_PNG });
      await dialog.getByRole('img', { name: 'Your signature' }).waitFor();
      await shots.take(page, 'uploaded');
      await dialog.getByRole('button', { name: 'Use this signature' }).click();
      assert.equal(await left(), 'All fields are filled');
      await page.getByRole('checkbox', { name: /I agree to sign/ }).focus();
      await page.keyboard.press('Space');
      await page.getByRole('button', { name: 'Sign', exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(returnUrl);
      assert.equal(await page.getByRole('heading').textContent(), 'Thanks, back home');
      assert.deepEqual(errors, []);

      const fields = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json()
        .documents[0].fields as { label: string | null; field_type: number; value: string | null }[];
      const value = (label: string) => fields.find((f) => f.label === label)!.value;
      assert.deepEqual(
        ['Address', 'Amount', 'Start date', 'I have read the annex', 'Payment', 'Pets allowed'].map(value),
        ['12 MG Road, Pune', '1250.50', '2026-12-01', 'true', 'Quarterly', 'No'],
      );
      assert.equal(fields.find((f) => f.field_type === 2)!.value, 'AR', 'the typed initials');
      const signer = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(signer.act_details!).signature, 'uploaded');
      assert.equal(JSON.parse(signer.act_details!).initials, 'typed');

      // The approver: the document, the signer's values read-only, consent, Approve.
      const approverSession = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[1], mode: 'redirect' },
      });
      await page.goto(onServer(origin, approverSession.json().signing_url));
      await page.getByText('Approving as Ravi Kumar (ravi@example.com)').waitFor();
      assert.equal(await page.getByRole('note', { name: 'Amount, filled by another recipient: 1250.50' }).count(), 1);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Please accept the statement above to continue.').waitFor();
      await page.getByRole('checkbox', { name: /I have read this document/ }).check();
      await shots.take(page, 'approver');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'You have approved' }).waitFor();
      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: /^Download / }).click();
      assert.deepEqual(
        pdfsigVerdicts(readFileSync((await (await downloading).path())!)).valid,
        [true, true, true],
        'the certification at send, the signature, then the completion lock',
      );
      await shots.take(page, 'approved');
      await page.context().close();
    } finally {
      await back.close();
    }
  });

  test('a pre-assigned value is read-only on the page (an editable one is not); the act keeps it', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Meera Iyer', email: 'meera@example.com' }],
      extraFields: (ids) => [
        {
          recipient_id: ids[0],
          field_type: 8,
          page_number: 1,
          x: 300,
          y: 40,
          width: 220,
          height: 22,
          label: 'Company',
          value: 'ACME Ltd',
        },
        {
          recipient_id: ids[0],
          field_type: 8,
          page_number: 1,
          x: 300,
          y: 80,
          width: 220,
          height: 22,
          label: 'Address',
          value: 'fill me',
          editable: true,
        },
      ],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    const page = await (await newContext(browser, { viewport: { width: 1200, height: 900 } })).newPage();
    const errors = collectPageErrors(page);
    await page.goto(onServer(origin, session.json().signing_url));
    await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
    // Read-only: shown with its value, no editable control for it.
    assert.equal(
      await page.getByRole('note', { name: 'Company, set by the sender (cannot be changed): ACME Ltd' }).count(),
      1,
    );
    assert.equal(await page.getByRole('textbox', { name: /Company/ }).count(), 0);
    const editable = page.getByRole('textbox', { name: /Address/ });
    assert.equal(await editable.inputValue(), 'fill me');
    await editable.fill('12 MG Road, Pune');
    await page.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Your signature' });
    await dialog.getByRole('tab', { name: 'Type' }).click();
    await dialog.getByRole('button', { name: 'Use this signature' }).click();
    await page.getByRole('checkbox', { name: /I agree to sign/ }).check();
    await shots.take(page, 'preassigned-ready');
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByRole('heading', { name: 'You have signed' }).waitFor();
    assert.deepEqual(errors, []);
    const fields = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json()
      .documents[0].fields as { label: string | null; value: string | null }[];
    assert.deepEqual(
      ['Company', 'Address'].map((label) => fields.find((f) => f.label === label)!.value),
      ['ACME Ltd', '12 MG Road, Pune'],
    );
    await page.context().close();
  });

  test('drawing with a finger on a touch screen', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Meera Iyer', email: 'meera@example.com' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    const context = await newContext(browser, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const page = await context.newPage();
    await page.goto(onServer(origin, session.json().signing_url));
    await page.getByRole('button', { name: /Sign here/ }).tap();
    const pad = page.getByRole('img', { name: 'Signature drawing area' });
    const box = (await pad.boundingBox())!;
    // A real touch gesture (touchstart, touchmoves, a rest, touchend) through the DevTools protocol.
    const cdp = await context.newCDPSession(page);
    const stroke = Array.from({ length: 21 }, (_, i) => ({
      x: box.x + 20 + i * 12,
      y: box.y + box.height / 2 + 30 * Math.sin(i / 3),
    }));
    await drawWithFinger(cdp, stroke);
    await shots.take(page, 'touch-drawn');
    await page.getByRole('button', { name: 'Use this signature' }).tap();
    const adopted = page.getByRole('button', { name: /Your signature \(change\)/ });
    await adopted.waitFor();
    const image = await adopted
      .locator('img')
      .evaluate((img) => ({ width: img.naturalWidth, height: img.naturalHeight }));
    assert.ok(image.width > 150 && image.height > 30, `the stroke was drawn (${image.width}×${image.height})`);
    await context.close();
  });

  test('a stroke ends when the pad loses pointer capture: hovering afterwards draws nothing', async () => {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Kavya Nair', email: 'kavya@example.com' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    const context = await newContext(browser, { viewport: { width: 1000, height: 800 } });
    const page = await context.newPage();
    await page.goto(onServer(origin, session.json().signing_url));
    await page.getByRole('button', { name: /Sign here/ }).click();
    const pad = page.getByRole('img', { name: 'Signature drawing area' });
    const box = (await pad.boundingBox())!;
    const ink = () => pad.evaluate((canvas) => (canvas as unknown as { toDataURL(): string }).toDataURL());
    const y = box.y + box.height / 2;

    await page.mouse.move(box.x + 30, y);
    await page.mouse.down();
    await page.mouse.move(box.x + 120, y + 20, { steps: 5 });
    // Something else takes the pointer mid-stroke (a dialog, the window losing focus): capture is lost, and
    // the button is released outside the pad, so the pad never sees that pointerup.
    await pad.evaluate((canvas) => canvas.releasePointerCapture(1));
    await page.mouse.move(box.x + box.width / 2, box.y + box.height + 150, { steps: 3 });
    await page.mouse.up();
    const drawn = await ink();
    await page.mouse.move(box.x + box.width - 40, y - 20, { steps: 8 });
    await page.mouse.move(box.x + 60, y + 30, { steps: 8 });
    await shots.take(page, 'hover-after-lost-capture');
    assert.equal(await ink(), drawn, 'a pointer merely hovering over the pad after the stroke ended must not draw');
    await context.close();
  });
});
