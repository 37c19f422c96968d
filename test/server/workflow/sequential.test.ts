/**
 * One sequential envelope with every kind of act: an electronic signer, an approver, a USB DSC signer
 * (SoftHSM2) and a cc. The downloaded PDF is judged by pdfsig, qpdf and openssl cms per signature; every
 * earlier revision is a byte prefix; Mohar's verifier sees only form filling and signatures after each one.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { makePng } from '../../support/png.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { useSoftHsmModule } from '../../support/softhsm.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { opensslCmsVerify, pdfsigVerdicts, signedParts } from '../../support/validators.js';

// The token's certificates chain to a configured test anchor and have a good OCSP answer (DSC trust).
// The token belongs to the envelope's DSC recipient (a certificate naming neither is refused).
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };
const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});

for (const kind of DATABASES) {
  describe(`a sequential envelope with every act on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    test('electronic signer -> approver -> DSC signer -> cc', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com', role: 'approver' },
          { name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' },
          { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
        ],
        extraFields: (ids) => [
          { recipient_id: ids[0], field_type: 8, page_number: 2, x: 50, y: 50, width: 200, height: 20, label: 'PAN' },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const [asha, ravi, holder] = draft.recipientIds as [string, string, string];
      const link = async (recipientId: string) =>
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
            key: t.account.key,
            json: { recipient_id: recipientId, mode: 'redirect' },
          })
        )
          .json()
          .signing_url.split('/sign/')[1] as string;

      // Out of turn: the DSC signer cannot act before the others.
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
            key: t.account.key,
            json: { recipient_id: holder, mode: 'redirect' },
          })
        ).statusCode,
        409,
      );

      const ashaToken = await link(asha);
      const pan = (await t.server.request('GET', `${API}/signing/${ashaToken}`))
        .json()
        .fields.find((f: { label: string }) => f.label === 'PAN');
      const image = makePng(40, 16, (x, y) => (Math.abs(y - 8) < 2 || x % 9 === 0 ? [0, 0, 90, 255] : [0, 0, 0, 0]));
      const signed = await t.server.request('POST', `${API}/signing/${ashaToken}`, {
        json: {
          action: 'sign',
          consent: true,
          fields: { [pan.field_id]: 'ABCDE1234F' },
          signature: { kind: 'drawn', image_png: image.toString('base64') },
        },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      const approved = await t.server.request('POST', `${API}/signing/${await link(ravi)}`, {
        json: { action: 'approve', consent: true },
      });
      assert.equal(approved.statusCode, 200, approved.body);

      const holderToken = await link(holder);
      const prepared = await t.server.request(
        'GET',
        `${API}/signing/${holderToken}/documents/${draft.documentId}/prepared`,
      );
      const field = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
      const tokenKey = await tokenSigner({
        module: softHsm.module,
        token: { serial: softHsm.hsm.tokenSerial },
        certId: softHsm.hsm.keys.find((k) => k.type === 'EC')!.certificateId!,
        pin: softHsm.hsm.pin,
      });
      const byToken = await signPades(prepared.rawPayload, tokenKey, {
        level: 'B-B',
        field: { name: field },
        signingTime: new Date(),
      });
      const uploaded = await t.server.app.inject({
        method: 'PUT',
        url: `${API}/signing/${holderToken}/documents/${draft.documentId}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: byToken.bytes,
      });
      assert.equal(uploaded.statusCode, 200, uploaded.body);
      assert.equal(uploaded.json().envelope_status, 'completed');

      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      for (const r of revisions) {
        assert.ok(
          final.subarray(0, Number(r.size)).equals(await t.server.ctx.blobs.get(r.sha256)),
          `revision ${r.seq} (${r.act}) is a byte prefix`,
        );
      }
      assert.ok(qpdfCheck(final).ok);
      const poppler = pdfsigVerdicts(final);
      assert.deepEqual(poppler.valid, [true, true, true, true], poppler.output);

      const report = verifyPdf(final);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
      // The certification at send, the electronic signature, the token's, the completion lock (issue 26).
      assert.equal(report.signatures.length, 4);
      assert.equal(report.signatures[0]!.docMdp, 2);
      // After the certification: the electronic signer's PAN and signature (form filling at worst); after theirs: the
      // token's signature.
      assert.equal(
        report.signatures[0]!.changesAfter,
        'form_filling',
        'only form filling and signatures after the certification',
      );
      assert.equal(report.signatures[1]!.changesAfter, 'signing');
      assert.ok(
        report.signatures[0]!.changedObjects.some(
          (o) => o.class === 'form_filling' && o.field !== undefined && o.reason.includes('/V'),
        ),
        'the PAN value is form filling of its field',
      );
      // Completion seals (a new signature: signing) and appends the token certificate's chain and OCSP answer (/DSS,
      // DSC trust): validation data.
      assert.equal(report.signatures[2]!.changesAfter, 'signing');
      assert.equal(report.signatures[3]!.changesAfter, 'ltv');
      // The certification and the electronic signature chain to the installation CA, the token's to the test PKI root.
      const seal = await t.server.ctx.seal();
      const sealCa = join(mkdtempSync(join(tmpdir(), 'mohar-seal-ca-')), 'ca.pem');
      writeFileSync(sealCa, new X509Certificate(Buffer.from(seal.chain.at(-1)!)).toString());
      for (const signature of report.signatures) {
        const { data, cms } = signedParts(final, signature.byteRange);
        const verdict = opensslCmsVerify(cms, data, signature.index === 3 ? softHsm.hsm.pki.root.certPath : sealCa);
        assert.ok(verdict.ok, `openssl cms -verify, signature ${signature.index}: ${verdict.output}`);
      }
      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.deepEqual(
        status.recipients.map((r: { status: string }) => r.status),
        ['signed', 'approved', 'signed', 'completed'],
      );
    });
  });
}
