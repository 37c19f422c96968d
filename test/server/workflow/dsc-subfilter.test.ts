/**
 * Issue 26 point 3 through the real API, on SQLite and PostgreSQL: a USB DSC upload (PUT …/signed) whose signature
 * dictionary carries /SubFilter /adbe.x509.rsa_sha1, an unknown /Mohar.Forged, or no /Filter and /SubFilter, with a
 * valid detached CMS inside made by a SoftHSM2 token, is refused with 422 invalid_signed_document naming what it
 * found; nothing is stored and the envelope does not move. The same signer's ordinary signature is then accepted.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { createSignedData } from '../../../pdf/cms/index.js';
import type { SignatureProvider } from '../../../pdf/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { byteRangeData, embedSignatureInPlace, prepareSignature } from '../../../pdf/sign/prepare.js';
import { rewriteInRevision } from '../../support/cms-variants.js';
import { DATABASES } from '../../support/databases.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { useSoftHsmModule } from '../../support/softhsm.js';

// The DSC recipient is the token's holder: a certificate naming neither the recipient's name nor e-mail is refused.
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };

const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});

const SUBFILTER = '/SubFilter /ETSI.CAdES.detached';

/** The prepared bytes + one revision signing `field` with the token, its signature dictionary rewritten first. */
async function signedWithDictionary(
  prepared: Buffer,
  field: string,
  signer: SignatureProvider,
  rewrite: (p: ReturnType<typeof prepareSignature>) => void,
): Promise<Buffer> {
  const p = prepareSignature(prepared, { field: { name: field }, signingTime: new Date() });
  rewrite(p);
  const digest = createHash('sha256').update(byteRangeData(p)).digest();
  return embedSignatureInPlace(p, await createSignedData({ messageDigest: digest, signer }));
}

const CASES: [string, (p: ReturnType<typeof prepareSignature>) => void, RegExp][] = [
  [
    '/SubFilter /adbe.x509.rsa_sha1',
    (p) => rewriteInRevision(p, SUBFILTER, '/SubFilter /adbe.x509.rsa_sha1'),
    /\/SubFilter \/adbe\.x509\.rsa_sha1 is not a recognised signature format/,
  ],
  [
    'an unknown /SubFilter /Mohar.Forged',
    (p) => rewriteInRevision(p, SUBFILTER, '/SubFilter /Mohar.Forged'),
    /\/SubFilter \/Mohar\.Forged is not a recognised signature format/,
  ],
  [
    'no /Filter and no /SubFilter',
    (p) => {
      rewriteInRevision(p, SUBFILTER, '');
      rewriteInRevision(p, '/Filter /Adobe.PPKLite', '');
    },
    /no \/Filter .*no \/SubFilter is not a recognised signature format/,
  ],
];

for (const kind of DATABASES) {
  describe(`DSC uploads with a /SubFilter no validator checks, on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    test('each is refused with 422 invalid_signed_document naming it, nothing stored; the ordinary one is accepted', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        pdf: makePdf({ pages: [{ text: 'Total price: 1,00,000 rupees' }] }),
        recipients: [{ name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const base = `${API}/signing/${session.json().signing_url.split('/sign/')[1] as string}/documents/${draft.documentId}`;
      const prepared = await t.server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const field = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
      const signer = await tokenSigner({
        module: softHsm.module,
        token: { serial: softHsm.hsm.tokenSerial },
        certId: softHsm.hsm.keys.find((k) => k.type === 'RSA')!.certificateId!,
        pin: () => softHsm.hsm.pin,
      });
      const state = async () => ({
        status: (await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })).json(),
        revisions: await t.server.ctx.db
          .selectFrom('document_revisions')
          .select(['seq', 'act', 'sha256'])
          .where('envelope_id', '=', draft.id)
          .orderBy('seq')
          .execute(),
      });
      const before = await state();

      for (const [label, rewrite, reason] of CASES) {
        const upload = await signedWithDictionary(prepared.rawPayload, field, signer, rewrite);
        const response = await t.server.app.inject({
          method: 'PUT',
          url: `${base}/signed`,
          headers: { 'content-type': 'application/pdf' },
          payload: upload,
        });
        assert.equal(response.statusCode, 422, `${label}: ${response.body}`);
        const problem = response.json();
        assert.equal(problem.code, 'invalid_signed_document', label);
        assert.match(problem.detail, reason, label);
        const after = await state();
        assert.equal(after.status.status, 'sent', label);
        assert.equal(after.status.recipients[0].status, before.status.recipients[0].status, label);
        assert.deepEqual(after.revisions, before.revisions, `${label}: no revision stored`);
        const sha = createHash('sha256').update(upload).digest('hex');
        assert.equal(await t.server.ctx.blobs.has(sha), false, `${label}: the upload is not stored`);
      }

      const clean = await signPades(prepared.rawPayload, signer, {
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
  });
}
