/**
 * The desktop signer against the real signer API, as the page will use it: GET the prepared PDF and its
 * X-Mohar-Signature-Field, signPrepared with a SoftHSM2 token, PUT the result. The server's strict upload
 * check accepts it and the envelope completes (SQLite and PostgreSQL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDesktopSigner, type DesktopSigner } from '../../../main/signer/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { createSoftHsm, type SoftHsm } from '../../support/softhsm.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { scriptedPrompt } from '../../support/pin-prompt.js';

let hsm: SoftHsm;
let signer: DesktopSigner;
const prompt = scriptedPrompt();

// The token's certificates chain to a configured test anchor and have a good OCSP answer (DSC trust).
const trust = useDscTrust();

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys() });
  pki.registerToken(hsm);
  signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt });
});

after(async () => {
  await signer?.close();
  hsm?.cleanup();
});

for (const kind of DATABASES) {
  describe(`desktop signer through the signer API on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);

    test('prepared -> signPrepared -> signed: accepted, the envelope completes, pdfsig names the token certificate', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        // The token's RSA certificate is Asha Rao's (DEFAULT_TOKEN_KEYS): the envelope is for her.
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: 'dsc' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const signingToken = session.json().signing_url.split('/sign/')[1] as string;
      const base = `${API}/signing/${signingToken}/documents/${draft.documentId}`;

      const preparedResponse = await t.server.request('GET', `${base}/prepared`);
      assert.equal(preparedResponse.statusCode, 200, preparedResponse.body);
      const prepared = preparedResponse.rawPayload;
      const fieldName = decodeURIComponent(String(preparedResponse.headers['x-mohar-signature-field']));

      const listed = await signer.listTokens();
      assert.ok(listed.ok);
      const token = listed.value.find((t) => t.label === hsm.tokenLabel)!;
      const certificate = token.certificates.find((c) => c.keyAlgorithm === 'RSA' && c.usableForSigning)!;
      assert.equal(certificate.certificateClass, 'Class 2');

      prompt.answer(hsm.pin);
      const result = await signer.signPrepared({
        pdfBase64: prepared.toString('base64'),
        fieldName,
        slotId: token.slotId,
        certificateId: certificate.id,
        documentName: 'Agreement',
      });
      assert.ok(result.ok, JSON.stringify(result));
      const signed = Buffer.from(result.value.pdfBase64, 'base64');
      assert.ok(signed.subarray(0, prepared.length).equals(prepared));

      const upload = await t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed,
      });
      assert.equal(upload.statusCode, 200, upload.body);
      assert.equal(upload.json().envelope_status, 'completed');

      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      // Completion appends the /DSS with the chain and OCSP answer found at upload (DSC trust).
      assert.ok(
        final.subarray(0, signed.length).equals(signed),
        'the download extends the signed PDF the desktop made',
      );
      assert.ok(final.subarray(signed.length).includes('/DSS'), 'by a /DSS revision');
      const poppler = pdfsigVerdicts(final);
      assert.deepEqual(
        poppler.valid,
        [true, true, true],
        `the token's signature, the certification at send and the completion lock: ${poppler.output}`,
      );
      assert.match(poppler.output, /Asha Rao/);
      assert.ok(qpdfCheck(final).ok);
    });
  });
}
