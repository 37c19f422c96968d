/**
 * The attack of issue 11 through the real API, on SQLite and PostgreSQL: a one-signer USB DSC envelope;
 * the signer fetches …/prepared, appends ONE revision that adds a content stream to page 1 ("PRICE
 * CHANGED: 1 RUPEE") AND signs their own field in it, with a trusted software key and with a SoftHSM2
 * token. PUT …/signed: 422 invalid_signed_document naming the page content; nothing stored, nothing
 * changed. The same signer's clean signature is then accepted (the refusal left the envelope usable).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { listSignatureFields } from '../../../pdf/acroform.js';
import { createSignedData } from '../../../pdf/cms/index.js';
import { PdfReader } from '../../../pdf/document.js';
import { PdfArray, PdfName, PdfRef, PdfString } from '../../../pdf/objects.js';
import { getPages } from '../../../pdf/pages.js';
import { addSignatureAppearance } from '../../../pdf/sign/appearance.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/index.js';
import { addSigFlags } from '../../../pdf/write/form.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { pdfDate } from '../../../pdf/write/text.js';
import { DATABASES } from '../../support/databases.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { dscPrepared } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { useSoftHsmModule } from '../../support/softhsm.js';

// The token belongs to the envelope's DSC recipient (a certificate naming neither is refused).
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };
const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});

/**
 * Prepared bytes + ONE revision: page 1 gets a second content stream printing the new price, and the
 * signer's field is signed in that same revision (a real CMS over the whole file, as a token would make).
 */
async function priceChangedAndSigned(prepared: Buffer, fieldName: string, signer: SignatureProvider): Promise<Buffer> {
  const reader = PdfReader.open(prepared);
  const page = getPages(reader)[0]!;
  const field = listSignatureFields(reader, getPages(reader)).find((f) => f.name === fieldName)!;
  const update = new IncrementalUpdate(reader);
  const shadow = update.add(
    makeStream(
      dict({}),
      Buffer.from(
        'q 1 1 1 rg 40 640 530 120 re f Q BT /Helv 28 Tf 0 0 1 rg 60 700 Td (PRICE CHANGED: 1 RUPEE) Tj ET',
        'latin1',
      ),
    ),
  );
  const pageDict = update.editDict(page.ref!);
  const original = page.dict.get('Contents');
  assert.ok(original instanceof PdfRef, 'page 1 of the contract has a content stream of its own');
  pageDict.set('Contents', new PdfArray([original, shadow]));

  const byteRange = new PdfArray([0, new PdfName('**********'), new PdfName('**********'), new PdfName('**********')]);
  const contents = new PdfString(new Uint8Array(16 * 1024), true);
  update.track(byteRange);
  update.track(contents);
  const sig = update.add(
    dict({
      Type: name('Sig'),
      Filter: name('Adobe.PPKLite'),
      SubFilter: name('ETSI.CAdES.detached'),
      ByteRange: byteRange,
      Contents: contents,
      M: new PdfString(Buffer.from(pdfDate(new Date(), 0), 'latin1'), false),
    }),
  );
  const fieldRef = new PdfRef(field.ref!.num, field.ref!.gen);
  const fieldDict = update.editDict(fieldRef);
  fieldDict.set('V', sig);
  const [x0, y0, x1, y1] = field.widgets[0]!.userRect!;
  const widget =
    field.widgets[0]!.ref!.num === fieldRef.num
      ? fieldDict
      : update.editDict(new PdfRef(field.widgets[0]!.ref!.num, field.widgets[0]!.ref!.gen));
  widget.set(
    'AP',
    dict({
      N: addSignatureAppearance(
        update,
        { width: x1 - x0, height: y1 - y0, rotation: 0 },
        {},
        { name: 'Signer', signingTime: new Date() },
      ),
    }),
  );
  addSigFlags(update, 3);

  const written = update.write();
  const bytes = written.bytes;
  const br = written.spans.get(byteRange)!;
  const gap = written.spans.get(contents)!;
  const range = [0, gap.start, gap.end, bytes.length - gap.end];
  bytes.write(`[${range.join(' ')}`.padEnd(br.end - br.start - 1, ' ') + ']', br.start, 'latin1');
  const digest = createHash('sha256').update(bytes.subarray(0, gap.start)).update(bytes.subarray(gap.end)).digest();
  bytes.write(
    Buffer.from(await createSignedData({ messageDigest: digest, signer }))
      .toString('hex')
      .toUpperCase(),
    gap.start + 1,
    'latin1',
  );
  return bytes;
}

for (const kind of DATABASES) {
  describe(`the issue 11 attack through PUT …/signed on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    const signers: [string, () => Promise<SignatureProvider>][] = [
      [
        'a trusted software key',
        () => trust.get().signer(trust.get().issue({ commonName: 'Token Holder', email: 'token@example.com' })),
      ],
      [
        'a SoftHSM2 token',
        () =>
          tokenSigner({
            module: softHsm.module,
            token: { serial: softHsm.hsm.tokenSerial },
            certId: softHsm.hsm.keys.find((k) => k.type === 'RSA')!.certificateId!,
            pin: () => softHsm.hsm.pin,
          }),
      ],
    ];

    for (const [label, makeSigner] of signers) {
      test(`page content added in the signing revision, signed with ${label}: 422 naming it; the envelope does not move`, async () => {
        const { draft, base, prepared, field } = await dscPrepared(t.server, t.account.key, {
          pdf: makePdf({ pages: [{ text: 'Total price: 1,00,000 rupees' }, {}] }),
          recipients: [{ name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' }],
        });
        const signer = await makeSigner();

        const state = async () => ({
          status: (await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })).json(),
          current: (
            await t.server.ctx.db
              .selectFrom('envelope_documents')
              .select('current_sha256')
              .where('envelope_id', '=', draft.id)
              .executeTakeFirstOrThrow()
          ).current_sha256,
          revisions: await t.server.ctx.db
            .selectFrom('document_revisions')
            .select(['seq', 'act', 'sha256'])
            .where('envelope_id', '=', draft.id)
            .orderBy('seq')
            .execute(),
        });
        const before = await state();

        const attack = await priceChangedAndSigned(prepared, field, signer);
        assert.ok(
          attack.subarray(0, prepared.length).equals(prepared),
          'the attack extends the prepared bytes exactly',
        );
        const response = await t.server.app.inject({
          method: 'PUT',
          url: `${base}/signed`,
          headers: { 'content-type': 'application/pdf' },
          payload: attack,
        });
        assert.equal(response.statusCode, 422, response.body);
        const problem = response.json();
        assert.equal(problem.code, 'invalid_signed_document');
        assert.match(problem.detail, /page 1 \/Contents changed/);
        assert.ok(
          problem.objects.some((o: { reason: string }) => /new content stream on page 1/.test(o.reason)),
          JSON.stringify(problem.objects),
        );
        assert.ok(
          !problem.objects.some((o: { reason: string }) => /signature field .* signed/.test(o.reason)),
          'only the offending objects are named',
        );

        const after = await state();
        assert.equal(after.status.status, 'sent');
        assert.equal(after.status.recipients[0].status, before.status.recipients[0].status);
        assert.equal(after.current, before.current, 'the current document is unchanged');
        assert.deepEqual(after.revisions, before.revisions, 'no revision stored');
        assert.equal(
          await t.server.ctx.blobs.has(createHash('sha256').update(attack).digest('hex')),
          false,
          'the upload is not stored',
        );

        // The same signer's clean signature over the same prepared bytes is accepted.
        const clean = await signPades(prepared, signer, {
          level: 'B-B',
          field: { name: field },
          signingTime: new Date(),
        });
        const accepted = await t.server.app.inject({
          method: 'PUT',
          url: `${base}/signed`,
          headers: { 'content-type': 'application/pdf' },
          payload: clean.bytes,
        });
        assert.equal(accepted.statusCode, 200, accepted.body);
        assert.equal(accepted.json().envelope_status, 'completed');
      });
    }
  });
}
