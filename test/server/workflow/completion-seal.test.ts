/**
 * Issue 26, point 1, through the real API on SQLite and PostgreSQL: each signer's signature locks that signer's
 * fields, and completion ends with the installation seal's approval signature (revision act 'sealed') locking what
 * no signature locked yet (here nothing: sender-fields.test.ts has such fields). A revision appended to the
 * completed PDF that rewrites a signer's Text field
 * ("INR 10,00,000" -> "INR 1"), with or without a new appearance, is then a change the signatures do not allow:
 * for `verifyPdf` and, when PYHANKO_PATH is set, for pyHanko. Signed electronically, and by USB DSC with a
 * SoftHSM2 token. The untampered document stays valid for Mohar, pdfsig and pyHanko.
 */
import assert from 'node:assert/strict';
import { before, describe, test, type TestContext } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { rewriteTextField, type Tamper } from '../../support/field-tamper.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { assertPyhankoAllows, assertPyhankoRefuses, usePyhanko } from '../../support/lock-checks.js';
import { API, useTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { useSoftHsmModule } from '../../support/softhsm.js';
import { pdfsigVerdicts } from '../../support/validators.js';

// The DSC recipient is the token's holder: a certificate naming neither the recipient's name nor e-mail is refused.
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };

const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});
const pyhanko = usePyhanko();

const PRICE = 'INR 10,00,000';
const CONTRACT = makePdf({ pages: [{ text: `Total price: ${PRICE}` }] });
const TAMPERS: readonly Tamper[] = ['value only', 'value and appearance'];

async function signingBase(server: TestServer, key: string, envelopeId: string, recipientId: string): Promise<string> {
  const session = await server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
    key,
    json: { recipient_id: recipientId, mode: 'redirect' },
  });
  assert.equal(session.statusCode, 201, session.body);
  return `${API}/signing/${session.json().signing_url.split('/sign/')[1] as string}`;
}

async function finalPdf(server: TestServer, account: TestAccount, draft: { id: string; documentId: string }) {
  const download = await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
    key: account.key,
  });
  assert.equal(download.statusCode, 200, download.body);
  const acts = await server.ctx.db
    .selectFrom('document_revisions')
    .select('act')
    .where('envelope_id', '=', draft.id)
    .orderBy('seq')
    .execute();
  return { bytes: download.rawPayload, acts: acts.map((a) => a.act) };
}

/**
 * The completed document: valid everywhere (pyHanko included), the completion signature last, and `valueField`
 * locked by `lockedBy`: the signer's own signature (electronic: Mohar signs with the field's /Lock), or the
 * completion lock (USB DSC: the signer's tool signs a field without /Lock, see prepare-form.ts).
 */
async function assertCompletedAndLocked(
  ctx: TestContext,
  pdf: Buffer,
  lockedBy: string,
  valueField: string,
): Promise<void> {
  const report = verifyPdf(pdf);
  assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => [s.field, s.problems])));
  const completion = report.signatures.at(-1)!;
  assert.equal(completion.field, 'Mohar completion');
  const lock = report.signatures.find((s) => s.field === lockedBy)!.fieldLock;
  assert.ok(lock?.action === 'Include' && lock.fields.includes(valueField), JSON.stringify(lock));
  if (lockedBy !== completion.field) {
    // Every field is the signer's, locked by their signature: the completion lock adds none of its own.
    assert.equal(completion.fieldLock, null);
  }
  assert.ok(
    pdfsigVerdicts(pdf).valid.every(Boolean),
    'pdfsig: every signature valid (it judges each over its own bytes)',
  );
  const verdicts = pyhanko(ctx, pdf, 'completed.pdf');
  if (!verdicts) return;
  assert.ok(verdicts.has('Mohar completion'));
  assertPyhankoAllows(verdicts, [...verdicts.keys()]);
}

/** After the rewrite: the signature that locks the field reports it changed, for Mohar and for pyHanko. */
function assertTamperFlagged(t: TestContext, tampered: Buffer, lockedBy: string, valueField: string, how: string) {
  const report = verifyPdf(tampered);
  assert.equal(report.valid, false, `${how}: the document is no longer valid`);
  const s = report.signatures.find((x) => x.field === lockedBy)!;
  assert.equal(s.valid, false, `${how}: ${lockedBy} reports the change`);
  assert.ok(
    s.problems.some((p) => p.includes(`field "${valueField}" is locked by this signature`)),
    `${how}: ${lockedBy}: ${JSON.stringify(s.problems)}`,
  );
  const verdicts = pyhanko(t, tampered, `tampered-${how.replace(/\W+/g, '-')}.pdf`);
  if (verdicts) assertPyhankoRefuses(verdicts, [lockedBy], how);
}

for (const kind of DATABASES) {
  describe(`the completion lock on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    test('electronic: the signer’s signature locks the price, completion seals; the price rewritten afterwards is not allowed', async (ctx) => {
      const draft = await makeDraft(t.server, t.account.key, {
        pdf: CONTRACT,
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 1,
            x: 300,
            y: 300,
            width: 200,
            height: 24,
            label: 'Price',
          },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const base = await signingBase(t.server, t.account.key, draft.id, draft.recipientIds[0]!);
      const price = (await t.server.request('GET', base))
        .json()
        .fields.find((f: { label: string }) => f.label === 'Price');
      const act = await t.server.request('POST', base, {
        json: {
          action: 'sign',
          consent: true,
          fields: { [price.field_id]: PRICE },
          signature: { kind: 'typed', text: 'Asha Rao' },
        },
      });
      assert.equal(act.statusCode, 200, act.body);
      assert.equal(act.json().envelope_status, 'completed');

      const { bytes, acts } = await finalPdf(t.server, t.account, draft);
      assert.deepEqual(acts, ['uploaded', 'prepared', 'certified', 'signed', 'sealed']);
      const valueField = `mohar.${draft.recipientIds[0]}.${price.field_id as string}`;
      const report = verifyPdf(bytes);
      const signerField = report.signatures.find((s) => s.field.startsWith(`mohar.${draft.recipientIds[0]}.`))!.field;
      await assertCompletedAndLocked(ctx, bytes, signerField, valueField);

      for (const how of TAMPERS) {
        assertTamperFlagged(ctx, rewriteTextField(bytes, valueField, 'INR 1', how), signerField, valueField, how);
      }
    });

    test('USB DSC with a SoftHSM2 token: the pre-assigned price rewritten after completion is not allowed', async (ctx) => {
      const draft = await makeDraft(t.server, t.account.key, {
        pdf: CONTRACT,
        recipients: [{ name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' }],
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 1,
            x: 300,
            y: 300,
            width: 200,
            height: 24,
            label: 'Price',
            value: PRICE,
          },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const base = `${await signingBase(t.server, t.account.key, draft.id, draft.recipientIds[0]!)}/documents/${draft.documentId}`;
      const prepared = await t.server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const signerField = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
      const token = await tokenSigner({
        module: softHsm.module,
        token: { serial: softHsm.hsm.tokenSerial },
        certId: softHsm.hsm.keys.find((k) => k.type === 'RSA')!.certificateId!,
        pin: () => softHsm.hsm.pin,
      });
      // The desktop signer: signPades into the prepared field.
      const signed = await signPades(prepared.rawPayload, token, {
        level: 'B-B',
        field: { name: signerField },
        signingTime: new Date(),
      });
      const accepted = await t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed.bytes,
      });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().envelope_status, 'completed');

      const { bytes, acts } = await finalPdf(t.server, t.account, draft);
      // The DSC act's chain and OCSP answers go into a /DSS after the completion lock (no TSA here).
      assert.deepEqual(acts, ['uploaded', 'prepared', 'certified', 'signed', 'sealed', 'validation_data']);
      const fields = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json()
        .fields as { field_id: string; label: string | null }[] | undefined;
      const priceId =
        fields?.find((f) => f.label === 'Price')?.field_id ??
        (
          await t.server.ctx.db
            .selectFrom('fields')
            .select('id')
            .where('envelope_id', '=', draft.id)
            .where('field_type', '=', 8)
            .executeTakeFirstOrThrow()
        ).id;
      const valueField = `mohar.${draft.recipientIds[0]}.${priceId}`;
      // The token's signature carries no lock (its field has no /Lock); the completion lock holds the price.
      const signer = verifyPdf(bytes).signatures.find((s) => s.field === signerField)!;
      assert.equal(signer.fieldLock, null, "a USB DSC signer's field is prepared without /Lock");
      await assertCompletedAndLocked(ctx, bytes, 'Mohar completion', valueField);
      for (const how of TAMPERS) {
        assertTamperFlagged(
          ctx,
          rewriteTextField(bytes, valueField, 'INR 1', how),
          'Mohar completion',
          valueField,
          how,
        );
      }
    });
  });
}
