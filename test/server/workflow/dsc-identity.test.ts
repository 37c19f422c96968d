/**
 * Binding a USB DSC signature to its recipient through the real PUT …/signed, on SQLite and PostgreSQL, with
 * signatures made by a SoftHSM2 token whose certificates chain to a configured anchor with a good OCSP answer.
 * The envelope is for "Meera K D'Souza" <meera@example.com>. By default a certificate that names neither her name
 * nor her e-mail is refused (dsc_identity_mismatch, nothing stored); one of them matching is enough, names
 * compared without case, spaces or punctuation. accept_dsc_identity_mismatch records a mismatch instead;
 * require_dsc_identity_match (stricter) cannot be set together with it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { tokenSigner } from '../../../native/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { DATABASES } from '../../support/databases.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { useSoftHsmModule, type TokenKeySpec } from '../../support/softhsm.js';

// DSCs drop apostrophes and add dots: "MEERA K. DSOUZA" is her name.
const MEERA = { name: "Meera K D'Souza", email: 'meera@example.com' };

/** The token's certificates, by CKA_ID: whose name and e-mail each carries. */
const CERTIFICATES = {
  meera: { id: '11', commonName: 'MEERA K. DSOUZA', email: 'meera@example.com' },
  nameOnly: { id: '12', commonName: "Meera K.D'Souza", email: 'meera.dsouza@old-employer.in' },
  nameNoEmail: { id: '13', commonName: 'MEERA  K DSOUZA' },
  emailOnly: { id: '14', commonName: 'M DSouza', email: 'MEERA@Example.com' },
  other: { id: '15', commonName: 'Ravi Kumar', email: 'ravi@example.com' },
  otherNoEmail: { id: '16', commonName: 'Ravi Kumar' },
} satisfies Record<string, Omit<TokenKeySpec, 'label' | 'type'>>;
type Holder = keyof typeof CERTIFICATES;

const trust = useDscTrust();
const softHsm = useSoftHsmModule(async () => {
  const pki = await trust.ready();
  const urls = pki.tokenKeys()[0]!;
  const keys = Object.entries(CERTIFICATES).map(([label, spec]): TokenKeySpec => ({
    ...spec,
    label,
    type: 'ec',
    ocspUrl: urls.ocspUrl,
    crlUrl: urls.crlUrl,
  }));
  return { pki: pki.pki, keys };
});

const tokenKey = (holder: Holder) =>
  tokenSigner({
    module: softHsm.module,
    token: { serial: softHsm.hsm.tokenSerial },
    certId: CERTIFICATES[holder].id,
    pin: softHsm.hsm.pin,
  });

for (const kind of DATABASES) {
  describe(`DSC identity binding on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);
    before(() => trust.get().registerToken(softHsm.hsm));

    /** A live DSC envelope for Meera, signed with the token's certificate of `holder` and uploaded. */
    async function signAs(holder: Holder) {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ ...MEERA, signature_method: 'dsc' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const base = `${API}/signing/${session.json().signing_url.split('/sign/')[1]}/documents/${draft.documentId}`;
      const prepared = await t.server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const signed = await signPades(prepared.rawPayload, await tokenKey(holder), {
        level: 'B-B',
        field: { name: decodeURIComponent(String(prepared.headers['x-mohar-signature-field'])) },
        signingTime: new Date(),
      });
      const response = await t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed.bytes,
      });
      const recipient = await t.server.ctx.db
        .selectFrom('recipients')
        .select(['status', 'act_details'])
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      return {
        response,
        status: recipient.status,
        details: JSON.parse(recipient.act_details ?? '{}'),
        storedSignature: revisions.some((r) => r.act === 'signed'),
      };
    }

    async function putSettings(values: Record<string, boolean>) {
      const admin = await t.server.login(t.account.email, t.account.password);
      return t.server.request('PUT', `${LEGACY}/account/settings/`, {
        token: admin,
        json: { allowed_origins: [], ...values },
      });
    }

    async function accepted(holder: Holder, nameMatch: boolean, emailMatch: boolean | null) {
      const signed = await signAs(holder);
      assert.equal(signed.response.statusCode, 200, `${holder}: ${signed.response.body}`);
      assert.equal(signed.status, 'signed');
      assert.equal(signed.details.trust, 'trusted', holder);
      assert.deepEqual([signed.details.name_match, signed.details.email_match], [nameMatch, emailMatch], holder);
      return signed;
    }

    test("another person's certificate: 422 dsc_identity_mismatch naming the certificate, nothing stored", async () => {
      const refused = await signAs('other');
      assert.equal(refused.response.statusCode, 422, refused.response.body);
      assert.match(String(refused.response.headers['content-type']), /^application\/problem\+json/);
      const problem = refused.response.json();
      assert.equal(problem.code, 'dsc_identity_mismatch', refused.response.body);
      assert.equal(problem.name_match, false);
      assert.equal(problem.email_match, false);
      assert.equal(problem.certificate_name, 'Ravi Kumar');
      assert.deepEqual(problem.certificate_emails, ['ravi@example.com']);
      assert.equal(refused.storedSignature, false, 'no signed revision');
      assert.notEqual(refused.status, 'signed');

      const noEmail = await signAs('otherNoEmail');
      assert.equal(noEmail.response.statusCode, 422, 'without an e-mail the name must match');
      assert.deepEqual(
        [noEmail.response.json().code, noEmail.response.json().name_match, noEmail.response.json().email_match],
        ['dsc_identity_mismatch', false, null],
      );
      assert.equal(noEmail.storedSignature, false);
    });

    test('one of name or e-mail is enough; capitals, spaces, dots and apostrophes in the name do not matter', async () => {
      await accepted('meera', true, true);
      await accepted('nameOnly', true, false);
      await accepted('nameNoEmail', true, null);
      await accepted('emailOnly', false, true);
    });

    test('accept_dsc_identity_mismatch: accepted and recorded; require_dsc_identity_match is stricter', async () => {
      const saved = await putSettings({ accept_dsc_identity_mismatch: true });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(saved.json().accept_dsc_identity_mismatch, true);
      try {
        const recorded = await accepted('other', false, false);
        assert.equal(recorded.details.certificate_validation.identity.certificate_name, 'Ravi Kumar');
        const contradiction = await putSettings({ require_dsc_identity_match: true });
        assert.equal(contradiction.statusCode, 422, contradiction.body);
        assert.equal(contradiction.json().code, 'validation_failed');
      } finally {
        assert.equal((await putSettings({ accept_dsc_identity_mismatch: false })).statusCode, 200);
      }

      assert.equal((await putSettings({ require_dsc_identity_match: true })).statusCode, 200);
      try {
        const strict = await signAs('nameOnly');
        assert.equal(strict.response.statusCode, 422, strict.response.body);
        assert.equal(strict.response.json().code, 'dsc_identity_mismatch');
        assert.equal(strict.storedSignature, false);
        await accepted('meera', true, true);
      } finally {
        await putSettings({ require_dsc_identity_match: false });
      }
    });
  });
}
