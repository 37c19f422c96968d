/**
 * End to end in Chromium: the office console's compose page (issue 14, test 1). A new user logs in, uploads a
 * real PDF, adds two recipients, drags a Signature, a Text and a Date field onto page 2 with the mouse (and
 * adds the second signer's Signature with the keyboard), sends; both recipients sign through the links in
 * their invitation mails; the console shows the envelope completed, and the signed PDF passes pdfsig and qpdf.
 * Then a USB DSC draft with two Signature fields: the problem shows on the field, locally and from the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  screenshots,
} from '../support/browser.js';
import { logInToConsole, sendFromCompose } from '../support/console.js';
import { makeDraft } from '../support/envelopes.js';
import { makePdf, qpdfCheck, samples } from '../support/pdf-fixtures.js';
import { ensureConsoleBuilt, ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';
import { DATABASES } from '../support/databases.js';
import { mailBody } from '../../server/mail/outbox.js';
import { installationBox } from '../../server/seal/installation-box.js';
import { pdfsigVerdicts } from '../support/validators.js';

ensureConsoleBuilt();
ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

/** Drags a palette button onto a point of page `pageNumber` (fractions of the page box) with real mouse moves. */
async function dragField(page: Page, type: string, pageNumber: number, at: { x: number; y: number }): Promise<void> {
  const target = page.locator(`.editor-page[data-page-number="${pageNumber}"] .page`);
  await target.scrollIntoViewIfNeeded();
  const source = (await page.locator('.palette').getByRole('button', { name: type, exact: true }).boundingBox())!;
  const box = (await target.boundingBox())!;
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  await page.mouse.move(source.x + source.width / 2 + 30, source.y + source.height / 2, { steps: 3 });
  await page.mouse.move(box.x + box.width * at.x, box.y + box.height * at.y, { steps: 12 });
  await page.mouse.up();
}

/** The signing link in a recipient's newest invitation mail. */
async function linkFromMail(
  t: ReturnType<typeof useTestServer>,
  origin: string,
  envelopeId: string,
  email: string,
): Promise<string> {
  await t.server.runJobs();
  const mails = await t.server.ctx.db
    .selectFrom('outbox_mail')
    .select(['id', 'text', 'html', 'sealed', 'kind'])
    .where('envelope_id', '=', envelopeId)
    .where('to_address', '=', email)
    .execute();
  // A mail with a signing link is stored sealed (issue 16, point 10): opened as the sender opens it.
  const box = await installationBox(t.server.ctx.config);
  const url = mails.map((m) => /https?:\/\/\S+\/sign\/\S+/.exec(mailBody(m, box).text)?.[0]).find(Boolean);
  assert.ok(url, `an invitation with a signing link for ${email}: ${JSON.stringify(mails.map((m) => m.kind))}`);
  return onServer(origin, url);
}

/** Signs on the hosted page: fills `values` by label, types a signature, consents, signs. */
async function signThroughLink(page: Page, link: string, values: Record<string, string>): Promise<void> {
  await page.goto(link);
  await page.waitForFunction(() => performance.getEntriesByName('mohar:fields-interactive').length > 0);
  for (const [label, value] of Object.entries(values)) await page.getByLabel(label).fill(value);
  await page.getByRole('button', { name: /^Signature \(required\): Sign here/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Your signature' });
  await dialog.getByRole('tab', { name: 'Type' }).click();
  await dialog.getByRole('button', { name: 'Use this signature' }).click();
  await page.getByRole('checkbox', { name: /I agree to sign/ }).check();
  await page.getByRole('button', { name: 'Sign', exact: true }).click();
  await page.getByRole('heading', { name: 'You have signed' }).waitFor();
}

async function addRecipient(page: Page, name: string, email: string): Promise<void> {
  const form = page.locator('form.recipient-form').last();
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('E-mail').fill(email);
  await form.getByRole('button', { name: 'Add recipient' }).click();
  await page.locator('.recipient-row', { hasText: email }).waitFor();
}

for (const kind of DATABASES) {
  describe(`console compose in Chromium on ${kind}`, () => {
    const t = useTestServer(kind);
    let origin: string;
    before(async () => {
      origin = await listenOnLoopback(t.server);
    });

    test('upload, two recipients, drag fields onto page 2, send; both sign from their mails; completed; the PDF validates', async () => {
      const shots = screenshots(`console-compose${kind === 'sqlite' ? '' : `-${kind}`}`);
      const context = await newContext(browser, { viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      const failed: string[] = [];
      page.on(
        'response',
        (r) =>
          r.status() >= 400 &&
          r.url().includes('/api/v1/') &&
          failed.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`),
      );
      await logInToConsole(page, origin, t.account, '/envelopes/new');
      await page.getByRole('heading', { name: 'New envelope' }).waitFor();
      await page.getByText('Upload a PDF to send your first envelope').waitFor();
      await shots.take(page, 'new-envelope');

      await page.getByLabel('Title').fill('Rental agreement, flat 4B');
      const pdf = makePdf({ pages: [{ text: 'Rental agreement, page one' }, { text: 'Page two: signatures' }] });
      await page
        .getByLabel('Choose PDF files')
        .setInputFiles({ name: 'rental.pdf', mimeType: 'application/pdf', buffer: pdf });
      await page.getByText('2 page(s)').waitFor();
      assert.match(page.url(), /\/app\/envelopes\/[0-9a-f-]{36}\/edit$/, 'the address names the new draft');
      const envelopeId = /envelopes\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;

      // A file that is not a PDF, dropped on the drop zone, is refused in words.
      // (A string: the test's TypeScript has no DOM types; this runs in the page.)
      const dropped = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['just some text, not a PDF'], 'notes.pdf', { type: 'application/pdf' }));
      return transfer;
    })()`);
      await page.locator('.drop-zone').dispatchEvent('dragover', { dataTransfer: dropped });
      await page.locator('.drop-zone').dispatchEvent('drop', { dataTransfer: dropped });
      // In the console's words first (issue 28, point 6); the server's own text only as the secondary line.
      const refusal = page.getByRole('alert').filter({ hasText: 'notes.pdf was not accepted' });
      await refusal.getByText('notes.pdf was not accepted: The file is not a readable PDF.').waitFor();
      assert.ok(((await refusal.locator('.refusal-detail').textContent()) ?? '').length > 0, 'the detail beneath');
      await refusal.scrollIntoViewIfNeeded();
      await shots.take(page, 'refusal-in-words');

      await addRecipient(page, 'Asha Rao', 'asha@example.com');
      await addRecipient(page, 'Ravi Kumar', 'ravi@example.com');
      assert.deepEqual(await page.locator('.recipient-row .badge.step').allTextContents(), ['Step 1', 'Step 2']);
      // A copy recipient: added as step 3, moved up with its button, dragged back down, joined to Ravi's step, renamed.
      const form = page.locator('form.recipient-form').last();
      await form.getByLabel('Role').selectOption('cc');
      assert.equal(await form.getByLabel('Signs by').count(), 0, 'a copy recipient does not sign');
      await addRecipient(page, 'Office copy', 'office@example.com');
      const steps = () =>
        page
          .locator('.recipient-row')
          .evaluateAll((rows) =>
            rows.map((r) => `${r.querySelector('.badge.step')?.textContent} ${r.querySelector('strong')?.textContent}`),
          );
      assert.deepEqual(await steps(), ['Step 1 Asha Rao', 'Step 2 Ravi Kumar', 'Step 3 Office copy']);
      await page.getByRole('button', { name: 'Move Office copy up' }).click();
      await page.locator('.recipient-row').nth(1).filter({ hasText: 'Office copy' }).waitFor();
      assert.deepEqual(await steps(), ['Step 1 Asha Rao', 'Step 2 Office copy', 'Step 3 Ravi Kumar']);
      await page
        .locator('.recipient-row', { hasText: 'Office copy' })
        .dragTo(page.locator('.recipient-row', { hasText: 'Ravi Kumar' }));
      await page.locator('.recipient-row').nth(2).filter({ hasText: 'Office copy' }).waitFor();
      await page
        .locator('.recipient-row', { hasText: 'Office copy' })
        .getByRole('checkbox', { name: 'Same step as the one above' })
        .click();
      await page.locator('.recipient-row', { hasText: 'Office copy' }).getByText('Step 2').waitFor();
      await page.getByRole('button', { name: 'Edit Office copy' }).click();
      await page.locator('.recipient-row form').getByLabel('Name').fill('Office records');
      await page.getByRole('button', { name: 'Save recipient' }).click();
      await page.locator('.recipient-row', { hasText: 'Office records' }).waitFor();
      assert.deepEqual(await steps(), ['Step 1 Asha Rao', 'Step 2 Ravi Kumar', 'Step 2 Office records']);
      const stored = (await t.server.request('GET', `${API}/envelopes/${envelopeId}`, { key: t.account.key })).json();
      assert.deepEqual(
        stored.recipients
          .map((r: { name: string; role: string; sequence: number }) => `${r.name} ${r.role} ${r.sequence}`)
          .sort(),
        ['Asha Rao signer 1', 'Office records cc 2', 'Ravi Kumar signer 2'],
      );
      assert.equal(stored.recipients.find((r: { role: string }) => r.role === 'cc').signature_method, 'review');
      await shots.take(page, 'recipients');

      // The server would refuse to send (envelope_incomplete): Send waits, and says why.
      const waiting = page.getByText('Still without a Signature field: Asha Rao, Ravi Kumar.');
      await waiting.waitFor();
      const send = page.getByRole('button', { name: 'Send', exact: true });
      assert.equal(await send.isDisabled(), true, 'Send is disabled while a signer has no Signature field');
      assert.match((await send.getAttribute('aria-describedby')) ?? '', /compose-send-missing/);
      await waiting.scrollIntoViewIfNeeded();
      await shots.take(page, 'send-waits-for-signatures');
      // Asha: Signature and Text dragged onto page 2.
      await page.getByRole('radio', { name: /Asha Rao/ }).check();
      await dragField(page, 'Signature', 2, { x: 0.25, y: 0.7 });
      await dragField(page, 'Text', 2, { x: 0.3, y: 0.3 });
      // Ravi: a Date dragged onto page 2, his Signature added with the keyboard and moved with the arrows.
      await page.getByRole('radio', { name: /Ravi Kumar/ }).check();
      await dragField(page, 'Date', 2, { x: 0.7, y: 0.3 });
      await page.locator('.palette').getByRole('button', { name: 'Signature', exact: true }).focus();
      await page.keyboard.press('Enter');
      const props = page.getByRole('complementary', { name: 'Field properties' });
      await props.getByLabel('Page').fill('2');
      const added = page.locator('.editor-field:focus');
      const before = Number(await props.getByLabel('Left').inputValue());
      await page.locator('.editor-field.selected').focus();
      await page.keyboard.press('Shift+ArrowRight');
      assert.equal(
        Number(await props.getByLabel('Left').inputValue()),
        before + 10,
        'Shift+Arrow moves the field 10 points',
      );
      assert.equal(await added.count(), 1);

      await page.locator('.editor-page[data-page-number="2"]').scrollIntoViewIfNeeded();
      await shots.take(page, 'fields-placed');
      assert.equal(await page.getByText(/Still without a Signature field/).count(), 0);
      const placed = await page
        .locator('.editor-field')
        .evaluateAll((els) =>
          els.map(
            (e) =>
              `${e.closest('.editor-page')?.getAttribute('data-page-number')}:${e.getAttribute('data-field-type')}`,
          ),
        );
      assert.deepEqual(placed.sort(), ['2:1', '2:1', '2:11', '2:8']);

      assert.deepEqual(
        failed.map((f) => f.replace(/[0-9a-f-]{36}/g, 'ID')),
        ['422 POST /backend/api/v1/envelopes/ID/documents'],
        'compose made no failing API call but the refused upload',
      );
      // Failed loads are logged by Chromium as console errors (checked just above); nothing else may be logged on
      // compose.
      assert.deepEqual(
        errors.filter((e) => !e.startsWith('Failed to load resource')),
        [],
        'no console errors on compose (CSP violations included)',
      );
      // Send asks first: what goes out, to whom, in which order. Focus starts on Cancel; Escape cancels and gives
      // focus back to Send; nothing was sent.
      const sendButton = page.getByRole('button', { name: 'Send', exact: true });
      await sendButton.click();
      const confirm = page.getByRole('dialog', { name: 'Send this envelope now?' });
      await confirm.waitFor();
      const summary = (await confirm.textContent()) ?? '';
      assert.match(summary, /with 1 document\(s\)/);
      assert.match(summary, /Recipients \(3\)/);
      assert.match(
        summary,
        /Asha Rao \(Signer\) asha@example\.com.*Ravi Kumar \(Signer\).*Office records \(Gets a copy\)/s,
      );
      assert.match(summary, /each next one when the previous step is done/);
      assert.equal(
        await confirm.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === b.ownerDocument.activeElement),
        true,
        'focus starts on Cancel: Enter does not send by accident',
      );
      await shots.take(page, 'send-confirm');
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      assert.equal(await sendButton.evaluate((b) => b === b.ownerDocument.activeElement), true, 'focus back on Send');
      const notYet = (await t.server.request('GET', `${API}/envelopes/${envelopeId}`, { key: t.account.key })).json();
      assert.equal(notYet.status, 'draft', 'Escape sent nothing');
      await sendFromCompose(page);
      await page.waitForURL(new RegExp(`/app/envelopes/${envelopeId}$`));
      const sent = (await t.server.request('GET', `${API}/envelopes/${envelopeId}`, { key: t.account.key })).json();
      assert.equal(sent.status, 'sent');
      const fields = sent.documents[0].fields as {
        field_type: number;
        page_number: number;
        x: number;
        y: number;
        width: number;
        height: number;
      }[];
      assert.deepEqual(
        fields.map((f) => f.page_number),
        [2, 2, 2, 2],
      );
      const page2 = sent.documents[0].pages[1];
      for (const f of fields) {
        assert.ok(
          f.x >= 0 && f.y >= 0 && f.x + f.width <= page2.width && f.y + f.height <= page2.height,
          'inside page 2',
        );
      }
      const signature = fields.find((f) => f.field_type === 1)!;
      assert.ok(
        Math.abs(signature.y + signature.height / 2 - page2.height * 0.7) < 3,
        `dropped where the mouse let go (y ${signature.y})`,
      );
      await shots.take(page, 'sent');

      const signer = await newContext(browser, { viewport: { width: 1100, height: 900 } });
      const signing = await signer.newPage();
      await signThroughLink(signing, await linkFromMail(t, origin, envelopeId, 'asha@example.com'), {
        'Text (required)': '12 MG Road, Pune',
      });
      await signThroughLink(signing, await linkFromMail(t, origin, envelopeId, 'ravi@example.com'), {
        'Date (required)': '2026-11-25',
      });
      await shots.take(signing, 'second-signed');
      await signer.close();
      await t.server.runJobs();

      await page.reload();
      await page
        .locator('main')
        .getByText(/completed/i)
        .first()
        .waitFor();
      await shots.take(page, 'completed');
      const download = await t.server.request(
        'GET',
        `${API}/envelopes/${envelopeId}/documents/${sent.documents[0].document_id}/download`,
        { key: t.account.key },
      );
      assert.equal(download.statusCode, 200);
      const signed = download.rawPayload;
      assert.ok(qpdfCheck(signed).ok, 'qpdf --check');
      const verdicts = pdfsigVerdicts(signed);
      assert.deepEqual(verdicts.valid, [true, true, true, true], verdicts.output); // with the completion lock
      assert.deepEqual(
        errors.filter((e) => !e.startsWith('Failed to load resource')),
        [],
        'no console errors from compose to completed',
      );
      await context.close();
    });

    test('a USB DSC signer with two Signature fields: the problem shows on the field, from the page and from the server', async () => {
      const shots = screenshots(`console-compose-layout${kind === 'sqlite' ? '' : `-${kind}`}`);
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Meera Iyer', email: 'meera@example.com', signature_method: 'dsc' }],
        pdf: samples.emptySignatureField(),
        extraFields: () => [],
      });
      const context = await newContext(browser, { viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      await logInToConsole(page, origin, t.account, `/envelopes/${draft.id}/edit`);
      await page.getByRole('heading', { name: 'Edit draft' }).waitFor();
      const existing = await page.locator('.editor-field[data-field-type="1"]').count();
      const signatureButton = page.locator('.palette').getByRole('button', { name: 'Signature', exact: true });
      for (let i = existing; i < 2; i++) {
        await signatureButton.focus();
        await page.keyboard.press('Enter');
      }
      assert.equal(
        await page.locator('.palette').getByRole('button', { name: 'Initial', exact: true }).isDisabled(),
        true,
        'no Initial for USB DSC',
      );
      const second = page.locator('.editor-field[data-field-type="1"]').nth(1);
      assert.match(
        (await second.getByRole('note').textContent()) ?? '',
        /exactly one Signature field; this is a second one/,
      );

      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText(/The server refused 1 field/).waitFor();
      assert.match(
        (await second.getByRole('note').textContent()) ?? '',
        /may have exactly one Signature field; field 0 is one already/,
        "the server's own words, on the field it names",
      );
      assert.match((await second.getAttribute('aria-describedby')) ?? '', /^problem-/);
      await second.click();
      const props = page.getByRole('complementary', { name: 'Field properties' });
      assert.match((await props.getByRole('alert').textContent()) ?? '', /field 0 is one already/);
      await shots.take(page, 'dsc-two-signatures');

      // One Signature, signed into the PDF's own empty signature field: saved.
      await second.press('Delete');
      await page.locator('.editor-field[data-field-type="1"]').first().click();
      const choice = props.getByLabel('Sign into the PDF’s own signature field');
      assert.deepEqual(await choice.locator('option').allTextContents(), [
        'No: use the box placed on the page',
        'Signature1',
      ]);
      await choice.selectOption('Signature1');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft saved.').waitFor();
      const stored = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.deepEqual(
        stored.documents[0].fields.map((f: { field_type: number; pdf_signature_field: string | null }) => [
          f.field_type,
          f.pdf_signature_field,
        ]),
        [[1, 'Signature1']],
      );

      // In Hindi.
      await page.getByLabel('Language / भाषा').selectOption('hi');
      await page.getByRole('heading', { name: 'ड्राफ़्ट संपादित करें' }).waitFor();
      await page.locator('.editor-field').first().click();
      await shots.take(page, 'hindi');
      await context.close();
    });

    test('move and resize with the mouse and keyboard, snap to the page edge, preview one party, Delete; save as template', async () => {
      const shots = screenshots(`console-compose-editing${kind === 'sqlite' ? '' : `-${kind}`}`);
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com' },
        ],
        pdf: makePdf({ pages: 1 }),
      });
      const context = await newContext(browser, { viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      await logInToConsole(page, origin, t.account, `/envelopes/${draft.id}/edit`);
      const pdfPage = page.locator('.editor-page[data-page-number="1"] .page');
      await pdfPage.scrollIntoViewIfNeeded();
      const scale = (await pdfPage.boundingBox())!.width / 612;
      const props = page.getByRole('complementary', { name: 'Field properties' });
      const value = async (label: string) => Number(await props.getByLabel(label, { exact: true }).inputValue());
      const asha = page.locator('.editor-field').first();
      await asha.click();
      const [left, top, width] = [await value('Left'), await value('Top'), await value('Width')];

      const dragBy = async (from: { x: number; y: number }, dx: number, dy: number) => {
        await page.mouse.move(from.x, from.y);
        await page.mouse.down();
        await page.mouse.move(from.x + dx, from.y + dy, { steps: 8 });
        await page.mouse.up();
      };
      let box = (await asha.boundingBox())!;
      await dragBy({ x: box.x + 20, y: box.y + 10 }, 100, 60);
      assert.ok(Math.abs((await value('Left')) - (left + 100 / scale)) < 1.5, 'moved right by the mouse distance');
      assert.ok(Math.abs((await value('Top')) - (top + 60 / scale)) < 1.5, 'moved down by the mouse distance');
      // Capture lost mid-drag (a dialog, the window losing focus) and the button released off the box: the drag
      // has ended, so a mouse merely passing over the box afterwards moves nothing.
      box = (await asha.boundingBox())!;
      await page.mouse.move(box.x + 20, box.y + 10);
      await page.mouse.down();
      await page.mouse.move(box.x + 30, box.y + 10, { steps: 2 });
      await asha.evaluate((el) => el.releasePointerCapture(1));
      await page.mouse.move(box.x + 30, box.y - 200, { steps: 2 });
      await page.mouse.up();
      const [leftAfterLoss, topAfterLoss] = [await value('Left'), await value('Top')];
      await page.mouse.move(box.x + 25, box.y + 12, { steps: 4 });
      await page.mouse.move(box.x + 5, box.y + 20, { steps: 4 });
      assert.deepEqual(
        [await value('Left'), await value('Top')],
        [leftAfterLoss, topAfterLoss],
        'hovering after lost capture moves nothing',
      );
      await page.mouse.move(box.x - 300, box.y - 200);
      box = (await asha.boundingBox())!;
      await dragBy({ x: box.x + box.width - 1, y: box.y + box.height - 1 }, 40, 0);
      assert.ok(Math.abs((await value('Width')) - (width + 40 / scale)) < 1.5, 'the corner handle resizes');
      box = (await asha.boundingBox())!;
      await dragBy({ x: box.x + 20, y: box.y + 10 }, 2000, 0);
      assert.equal(
        (await value('Left')) + (await value('Width')),
        612,
        'dragged past the edge: it stops on the page edge',
      );
      await asha.focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('Alt+ArrowDown');
      assert.equal((await value('Left')) + (await value('Width')), 611, 'arrow: 1 point');
      assert.equal(await value('Height'), 51, 'Alt+arrow resizes');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      assert.equal((await value('Left')) + (await value('Width')), 612, 'never past the page edge');

      // Preview as Ravi: only his field.
      await page.getByLabel('Show fields of').selectOption({ label: 'Ravi Kumar' });
      assert.equal(await page.locator('.editor-field').count(), 1);
      await shots.take(page, 'preview-ravi');
      await page.getByLabel('Show fields of').selectOption({ label: 'Everyone' });

      // A Text field added with the keyboard, given a label and a pre-filled value, then removed with Delete.
      await page.locator('.palette').getByRole('button', { name: 'Text', exact: true }).press('Enter');
      await props.getByLabel('Label').fill('Address');
      await props.getByLabel('Pre-filled value').fill('12 MG Road');
      await props.getByLabel('The recipient may change the pre-filled value').check();
      await shots.take(page, 'text-properties');
      assert.equal(await page.locator('.editor-field').count(), 3);
      await page.locator('.editor-field.selected').press('Delete');
      assert.equal(await page.locator('.editor-field').count(), 2);

      // A second PDF: its own tab and fields; saved; then removed from the draft.
      await page
        .getByLabel('Choose PDF files')
        .setInputFiles({ name: 'annex.pdf', mimeType: 'application/pdf', buffer: makePdf({ pages: 1 }) });
      await page.getByRole('button', { name: 'annex.pdf', exact: true }).click();
      await page
        .locator('.editor-page[data-page-number="1"] canvas[data-rendered-scale]')
        .waitFor({ state: 'attached' });
      await page.locator('.palette').getByRole('button', { name: 'Checkbox', exact: true }).press('Enter');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft saved.').waitFor();
      let stored = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.deepEqual(
        stored.documents.map(
          (d: { filename: string; fields: { field_type: number }[] }) =>
            `${d.filename}: ${d.fields.map((f) => f.field_type).join(',')}`,
        ),
        [`${stored.documents[0].filename}: 1,1`, 'annex.pdf: 9'],
      );
      await page.getByRole('button', { name: 'Remove annex.pdf' }).click();
      await page.getByRole('button', { name: 'Remove annex.pdf' }).waitFor({ state: 'detached' });
      stored = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.equal(stored.documents.length, 1);

      // Save as template asks for the name, prefilled with the envelope's title; Cancel makes nothing.
      const templatesBefore = (await t.server.request('GET', `${API}/templates`, { key: t.account.key })).json();
      await page.getByRole('button', { name: 'Save as template' }).click();
      const naming = page.getByRole('dialog', { name: 'Save as template' });
      const nameBox = naming.getByLabel('Template name');
      assert.equal(await nameBox.inputValue(), stored.title);
      assert.equal(await nameBox.evaluate((i) => i === i.ownerDocument.activeElement), true, 'focus in the name');
      await naming.getByRole('button', { name: 'Cancel' }).click();
      await naming.waitFor({ state: 'detached' });
      const templatesAfter = (await t.server.request('GET', `${API}/templates`, { key: t.account.key })).json();
      assert.equal(templatesAfter.templates.length, templatesBefore.templates.length, 'Cancel made no template');
      await page.getByRole('button', { name: 'Save as template' }).click();
      await nameBox.fill('Lease, flat 4B');
      await shots.take(page, 'template-name');
      await naming.getByRole('button', { name: 'Save template' }).click();
      await page.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/);
      const templateId = /templates\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
      const template = (await t.server.request('GET', `${API}/templates/${templateId}`, { key: t.account.key })).json();
      assert.equal(template.name, 'Lease, flat 4B', 'the template has the name given');
      const signature = template.documents[0].fields.find(
        (f: { role_key: string; x: number; width: number; height: number }) => f.x + f.width === 612,
      );
      assert.ok(
        signature,
        `the moved and resized Signature is in the template: ${JSON.stringify(template.documents[0].fields)}`,
      );
      assert.equal(signature.height, 51);
      assert.equal(template.documents[0].fields.length, 2);
      await context.close();
    });

    test('pages at their visible size (/Rotate, CropBox); a field dropped on a rotated, cropped page lands where it was dropped', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
        pdf: samples.mixedGeometry(),
      });
      const stored = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      const sizes = stored.documents[0].pages as { width: number; height: number }[];
      const context = await newContext(browser, { viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      await logInToConsole(page, origin, t.account, `/envelopes/${draft.id}/edit`);
      for (const [i, size] of sizes.entries()) {
        const section = page.locator(`.editor-page[data-page-number="${i + 1}"] .page`);
        await section.scrollIntoViewIfNeeded();
        await section.locator('canvas[data-rendered-scale]').waitFor({ state: 'attached' });
        const box = (await section.boundingBox())!;
        const canvas = await section
          .locator('canvas')
          .evaluate((c) => [(c as unknown as { width: number }).width, (c as unknown as { height: number }).height]);
        assert.ok(
          Math.abs(box.width / box.height - size.width / size.height) < 0.01,
          `page ${i + 1}: the box has the API's visible size`,
        );
        assert.ok(
          Math.abs(canvas[0]! / canvas[1]! - size.width / size.height) < 0.01,
          `page ${i + 1}: pdf.js draws the same box (${canvas.join('x')} vs ${size.width}x${size.height})`,
        );
      }
      await dragField(page, 'Date', 3, { x: 0.5, y: 0.5 });
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft saved.').waitFor();
      const saved = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      const date = saved.documents[0].fields.find((f: { field_type: number }) => f.field_type === 11);
      assert.equal(date.page_number, 3);
      assert.ok(
        Math.abs(date.x + date.width / 2 - sizes[2]!.width / 2) < 2 &&
          Math.abs(date.y + date.height / 2 - sizes[2]!.height / 2) < 2,
        `centred on page 3: ${JSON.stringify(date)}`,
      );
      await context.close();
    });
  });
}
