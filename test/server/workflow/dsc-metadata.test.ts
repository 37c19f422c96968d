/**
 * Issue 26 point 7 through the real API, on SQLite and PostgreSQL: the sender's contract is a PDF 1.4 with an
 * /Info dictionary and an XMP stream; the DSC signer's revision does what pyHanko's `sign addsig` does (and
 * Acrobat likewise): it signs their field with a SoftHSM2 token AND rewrites /Info and the XMP stream and adds
 * catalog /Version. PUT …/signed: 200, the envelope completes, and the completed PDF verifies for Mohar,
 * pdfsig, qpdf --check (and pyHanko, when PYHANKO_PATH names its source tree). The signature summary counts the
 * metadata among what the allow-list accepts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { dscPrepared } from '../../support/envelopes.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { pyhankoJudge, pyhankoMissing } from '../../support/pyhanko.js';
import { API, useTestServer } from '../../support/server.js';
import { useSoftHsmModule } from '../../support/softhsm.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { contractWithMetadata, pyHankoMetadata } from '../../support/shadow/metadata-fixtures.js';
import { signedRevision } from '../../support/shadow/revision.js';

// The DSC recipient is the token's holder: a certificate naming neither the recipient's name nor e-mail is refused.
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };

const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});

for (const kind of DATABASES) {
  describe(`a DSC upload that updates the document metadata beside its signature, on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    test('/Info and XMP rewritten, /Version added, signed with a SoftHSM2 token: 200, completed, verifies', async () => {
      const { draft, base, prepared, field } = await dscPrepared(t.server, t.account.key, {
        pdf: contractWithMetadata(),
        recipients: [{ name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' }],
      });
      const token = await tokenSigner({
        module: softHsm.module,
        token: { serial: softHsm.hsm.tokenSerial },
        certId: softHsm.hsm.keys.find((k) => k.type === 'RSA')!.certificateId!,
        pin: () => softHsm.hsm.pin,
      });
      const signed = await signedRevision(prepared, field, token, { attack: pyHankoMetadata });

      const accepted = await t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed,
      });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().envelope_status, 'completed');

      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      assert.ok(final.subarray(0, signed.length).equals(signed), 'the upload is an exact prefix of the download');
      assert.ok(final.length > signed.length, 'completion appended its /DSS revision');
      const report = verifyPdf(final);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => [s.field, s.problems])));
      assert.equal(
        report.signatures[0]!.changesAfter,
        'signing',
        'after the certification: the signature, metadata, DSS',
      );
      assert.ok(report.signatures[0]!.changedObjects.some((o) => o.class === 'metadata'));
      // The signer's, the certification's and the completion lock's (it locks what the upload's tool left unlocked).
      assert.deepEqual(pdfsigVerdicts(final).valid, [true, true, true], pdfsigVerdicts(final).output);
      assert.ok(qpdfCheck(final).ok, qpdfCheck(final).output);

      const summary = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/signatures`,
        { key: t.account.key },
      );
      assert.equal(summary.statusCode, 200, summary.body);
      const signatures = summary.json().signatures as { field: string; changes_after_allowed: boolean }[];
      assert.ok(signatures.length >= 2, summary.body);
      for (const s of signatures) {
        assert.equal(s.changes_after_allowed, true, s.field);
      }

      if (pyhankoMissing() === null) {
        const dir = mkdtempSync(join(tmpdir(), 'mohar-metadata-'));
        try {
          writeFileSync(join(dir, 'final.pdf'), final);
          for (const s of pyhankoJudge(join(dir, 'final.pdf')).signatures) {
            assert.equal(s.intact, true, JSON.stringify(s));
            assert.notEqual(s.docmdp_ok, false, JSON.stringify(s));
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    });
  });
}
