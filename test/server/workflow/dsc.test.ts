/**
 * The USB DSC act through the signer API with a real SoftHSM2 token: the desktop fetches the prepared
 * bytes, signs them with the token, uploads; the server accepts only a clean single signature on the
 * recipient's field. Every rejection leaves the envelope unchanged.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { useSoftHsmModule } from '../../support/softhsm.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

// The token's certificates chain to a configured test anchor and have a good OCSP answer (DSC trust).
// The token belongs to the envelope's DSC recipient (a certificate naming neither is refused).
const TOKEN_HOLDER = { commonName: 'Token Holder', email: 'token@example.com' };
const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  return { pki: pki.pki, keys: pki.tokenKeys(TOKEN_HOLDER) };
});

const tokenKey = (type: 'RSA' | 'EC') =>
  tokenSigner({
    module: softHsm.module,
    token: { serial: softHsm.hsm.tokenSerial },
    certId: softHsm.hsm.keys.find((k) => k.type === type)!.certificateId!,
    pin: softHsm.hsm.pin,
  });

for (const kind of DATABASES) {
  describe(`USB DSC signing on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    async function dscEnvelope() {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' },
          { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
        ],
        extraFields: (ids) => [
          { recipient_id: ids[0], field_type: 3, page_number: 1, x: 300, y: 40, width: 120, height: 20 },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const token = session.json().signing_url.split('/sign/')[1] as string;
      const base = `${API}/signing/${token}/documents/${draft.documentId}`;
      return { draft, token, base };
    }

    async function prepared(base: string) {
      const response = await t.server.request('GET', `${base}/prepared`);
      assert.equal(response.statusCode, 200, response.body);
      return {
        bytes: response.rawPayload,
        field: decodeURIComponent(String(response.headers['x-mohar-signature-field'])),
      };
    }

    const upload = (base: string, bytes: Buffer) =>
      t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: bytes,
      });

    test('the token signs the prepared bytes; the upload is accepted and completes the envelope', async () => {
      const { draft, token, base } = await dscEnvelope();
      const { bytes, field } = await prepared(base);
      const signed = await signPades(bytes, await tokenKey('RSA'), {
        level: 'B-B',
        field: { name: field },
        signingTime: new Date(),
      });
      const accepted = await upload(base, signed.bytes);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().envelope_status, 'completed');
      assert.equal((await t.server.request('GET', `${API}/signing/${token}`)).statusCode, 410);

      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      // Completion appends the /DSS with the chain and OCSP answer found at upload (DSC trust): the upload is an exact
      // prefix.
      assert.ok(
        final.subarray(0, signed.bytes.length).equals(signed.bytes),
        'the uploaded signed PDF is an exact prefix of the download',
      );
      assert.ok(
        final.length > signed.bytes.length && final.subarray(signed.bytes.length).includes('/DSS'),
        'a /DSS revision follows it',
      );
      assert.ok(final.subarray(0, draft.pdf.length).equals(draft.pdf));
      const poppler = pdfsigVerdicts(final);
      assert.deepEqual(
        poppler.valid,
        [true, true, true],
        'the certification at send, the token signature, the completion lock',
      );
      const subject = softHsm.hsm.keys
        .find((k) => k.type === 'RSA')!
        .certificate!.subject.split('CN=')[1]!
        .split('/')[0]!;
      assert.match(poppler.output, new RegExp(subject));
      const recipient = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      const details = JSON.parse(recipient.act_details!);
      assert.equal(details.method, 'dsc');
      assert.equal(details.trust, 'trusted', 'the token certificate chains to the configured test anchor, OCSP good');
      assert.equal(details.certificate_validation.revocation.status, 'good');
      assert.match(details.certificate.subject, new RegExp(subject));
      assert.equal(verifyPdf(final).valid, true);
    });

    test('tampered or wrong uploads are refused and change nothing', async () => {
      const { draft, base } = await dscEnvelope();
      const { bytes, field } = await prepared(base);
      const ec = await tokenKey('EC');
      const refusals: [string, () => Promise<Buffer>, RegExp][] = [
        [
          'earlier bytes changed',
          async () => {
            const good = (
              await signPades(bytes, await tokenKey('RSA'), {
                level: 'B-B',
                field: { name: field },
                signingTime: new Date(),
              })
            ).bytes;
            const bad = Buffer.from(good);
            bad[20] = bad[20]! ^ 1;
            return bad;
          },
          /does not extend the prepared bytes/,
        ],
        [
          'a signature in another field',
          async () =>
            (await signPades(bytes, ec, { level: 'B-B', field: { invisible: true }, signingTime: new Date() })).bytes,
          /it signs "Signature1" \(only ".+" may be signed\)/,
        ],
        [
          'two signatures',
          async () => {
            const one = (
              await signPades(bytes, await tokenKey('RSA'), {
                level: 'B-B',
                field: { name: field },
                signingTime: new Date(),
              })
            ).bytes;
            return (
              await signPades(one, await tokenKey('EC'), {
                level: 'B-B',
                field: { invisible: true },
                signingTime: new Date(),
              })
            ).bytes;
          },
          /exactly one revision; it appends 2/,
        ],
        [
          'nothing signed',
          async () => Buffer.concat([bytes, Buffer.from('\n% junk\n')]),
          /exactly one revision; it appends 0/,
        ],
      ];
      for (const [what, make, reason] of refusals) {
        let body: Buffer;
        try {
          body = await make();
        } catch {
          continue; // the fixture itself could not be made this way (e.g. fillForm without values): skip it
        }
        const response = await upload(base, body);
        assert.equal(response.statusCode, 422, `${what}: ${response.body}`);
        assert.equal(response.json().code, 'invalid_signed_document');
        assert.match(response.json().detail, reason, what);
      }
      // An expired certificate is a trust refusal (server/domain/trust), with its reason.
      const expired = softHsm.hsm.pki.issueExpired({ commonName: 'Expired Signer', keyType: 'ec' });
      const expiredSigner = await softwareSigner({
        keyPem: expired.keyPem,
        certificate: expired.certDer,
        chain: [...softHsm.hsm.chainDer],
      });
      const expiredUpload = await upload(
        base,
        (await signPades(bytes, expiredSigner, { level: 'B-B', field: { name: field }, signingTime: new Date() }))
          .bytes,
      );
      assert.equal(expiredUpload.statusCode, 422, expiredUpload.body);
      assert.equal(expiredUpload.json().code, 'dsc_certificate_untrusted');
      assert.equal(expiredUpload.json().reason, 'expired');
      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.equal(status.status, 'sent');
      assert.equal(status.recipients[0].status, 'active', 'the signer has not acted');
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        ['uploaded', 'prepared', 'certified'],
      );
    });

    test('an electronic act is refused for a DSC signer', async () => {
      const { token } = await dscEnvelope();
      const response = await t.server.request('POST', `${API}/signing/${token}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'x' } },
      });
      assert.equal(response.json().code, 'dsc_signing_required');
    });
  });
}
