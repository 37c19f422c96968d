/**
 * Issue 26, point 2 (Shadow "hide-and-replace", NDSS 2021) through the real API on SQLite and PostgreSQL: the
 * sender uploads a contract carrying an empty text field of their own over the price, assigns it to nobody and
 * sends. The certification at send locks it (FieldMDP /Include, beside DocMDP P=2); with certification turned
 * off, the completion lock does. A revision after completion that fills it with an opaque "price INR 1"
 * appearance is then a change that neither Mohar's verifier nor pyHanko allows; the untampered document stays
 * valid for Mohar, pdfsig and pyHanko.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { listFormFieldNames, prepareForm } from '../../../pdf/index.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { rewriteTextField } from '../../support/field-tamper.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { assertPyhankoAllows, assertPyhankoRefuses, usePyhanko } from '../../support/lock-checks.js';
import { API, useTestServer, type TestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

const pyhanko = usePyhanko();

const SENDER_FIELD = 'price_note';

/** A contract whose producer left an empty text field of its own over the price line (any form tool makes one). */
function contractWithSenderField(): Buffer {
  const contract = makePdf({ pages: [{ text: 'Total price: INR 10,00,000' }, {}] });
  return prepareForm(contract, [
    {
      type: 8,
      page: 1,
      rect: { x: 60, y: 60, width: 480, height: 40 },
      recipientId: 'sender',
      id: 'price',
      name: SENDER_FIELD,
      required: false,
    },
  ]).bytes;
}

/**
 * One signer signs a contract carrying the sender's own field; the completed PDF, then a revision filling that field
 * with an opaque "price INR 1": `locker` (the certification, or the completion lock when certification is off) locks
 * the field, and Mohar's verifier and pyHanko report the change after it as not allowed; the untampered file is valid.
 */
async function lockedAndTampered(server: TestServer, key: string, ctx: TestContext, locker: string): Promise<void> {
  const upload = contractWithSenderField();
  assert.deepEqual(listFormFieldNames(upload), [SENDER_FIELD]);
  const draft = await makeDraft(server, key, {
    pdf: upload,
    recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
  });
  await sendDraft(server, key, draft);
  const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
    key,
    json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
  });
  const act = await server.request('POST', `${API}/signing/${session.json().signing_url.split('/sign/')[1]}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
  });
  assert.equal(act.statusCode, 200, act.body);
  assert.equal(act.json().envelope_status, 'completed');
  const final = (
    await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, { key })
  ).rawPayload;

  // Untampered: exactly the sender's field is locked (not the signer's), by one signature, and all is valid.
  const report = verifyPdf(final);
  assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => [s.field, s.problems])));
  assert.deepEqual(
    report.signatures
      .filter((s) => s.fieldLock?.action === 'Include' && s.fieldLock.fields.includes(SENDER_FIELD))
      .map((s) => s.field),
    [locker],
  );
  assert.deepEqual(report.signatures.find((s) => s.field === locker)!.fieldLock, {
    action: 'Include',
    fields: [SENDER_FIELD],
  });
  assert.ok(pdfsigVerdicts(final).valid.every(Boolean), 'pdfsig: every signature valid');

  // Filled after completion with an opaque appearance over the price.
  const tampered = rewriteTextField(final, SENDER_FIELD, 'price INR 1', 'value and appearance');
  const after = verifyPdf(tampered);
  assert.equal(after.valid, false);
  const flagged = after.signatures.find((x) => x.field === locker)!;
  assert.ok(
    flagged.problems.some((p) => p.includes(`field "${SENDER_FIELD}" is locked by this signature`)),
    `${locker}: ${JSON.stringify(flagged.problems)}`,
  );

  const verdicts = pyhanko(ctx, final, 'completed.pdf');
  if (!verdicts) return;
  // The lock re-issued the field's appearance in its own revision: pyHanko 0.25.1 keeps it (lock-appearances.ts).
  assertPyhankoAllows(verdicts);
  assertPyhankoRefuses(pyhanko(ctx, tampered, 'tampered.pdf')!, [locker], 'filled after completion');
}

for (const kind of DATABASES) {
  describe(`the sender's own fields on ${kind}`, () => {
    const t = useTestServer(kind);
    const off = useTestServer(kind, { MOHAR_CERTIFY_AT_SEND: '0' });

    test('a field of the upload that no recipient holds is locked by the certification; filled after completion, it is not allowed', (ctx) =>
      lockedAndTampered(t.server, t.account.key, ctx, 'Mohar certification'));

    test('certification off (MOHAR_CERTIFY_AT_SEND=0): the completion lock locks it instead', (ctx) =>
      lockedAndTampered(off.server, off.account.key, ctx, 'Mohar completion'));
  });
}
