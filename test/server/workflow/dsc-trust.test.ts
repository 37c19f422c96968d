/**
 * USB DSC certificate trust through the real PUT …/signed, on SQLite and PostgreSQL: a test PKI whose root is a
 * configured anchor (MOHAR_DSC_TRUST_ANCHORS), a real `openssl ocsp` responder and CRL on loopback, a TSA.
 * Accepted: a chain to the anchor with a good OCSP answer (recorded, B-LT after completion by pdfsig and our
 * verifier, shown on the certificate of completion), a CRL-only certificate. Refused with
 * dsc_certificate_untrusted and its reason: self-signed, expired, not yet valid, revoked, OCSP down without CRL,
 * key usage not for signing. The account settings accept_untrusted_dsc, accept_dsc_identity_mismatch and
 * require_dsc_identity_match (identity binding in detail: dsc-identity.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/index.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { makeTestCertificate } from '../../../server/domain/sandbox/test-certificate.js';
import { DATABASES } from '../../support/databases.js';
import { createTestPki } from '../../support/pki.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { loopbackTransport, startTsa, type TestTsa } from '../../support/tsa.js';
import { pdfsigVerdicts } from '../../support/validators.js';

const trust = useDscTrust();
let tsa: TestTsa;
before(async () => {
  const { pki } = await trust.ready();
  const credential = pki.issueTsa();
  tsa = await startTsa({
    certPem: credential.certPem,
    keyPem: credential.keyPem,
    chainPem: pki.intermediate.certPem + pki.root.certPem,
  });
});
after(() => tsa?.close());

function pdftotext(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-coc-'));
  try {
    writeFileSync(join(dir, 'c.pdf'), pdf);
    const r = spawnSync('pdftotext', ['-layout', join(dir, 'c.pdf'), '-'], { encoding: 'utf8' });
    return r.stdout.replace(/\s+/g, ' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const kind of DATABASES) {
  describe(`DSC certificate trust on ${kind}`, () => {
    const t = useTestServer(kind, trust.env);

    async function dscEnvelope(recipient = { name: 'Asha Rao', email: 'asha@example.com' }) {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { ...recipient, signature_method: 'dsc' },
          { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const base = `${API}/signing/${session.json().signing_url.split('/sign/')[1]}/documents/${draft.documentId}`;
      return { draft, base };
    }

    async function signAndUpload(
      base: string,
      signer: SignatureProvider,
      level: 'B-B' | 'B-T' = 'B-B',
      tsaUrl = tsa.url,
    ) {
      const prepared = await t.server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const field = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
      const signed = await signPades(prepared.rawPayload, signer, {
        level,
        field: { name: field },
        signingTime: new Date(),
        ...(level === 'B-T' ? { tsaUrl, transport: loopbackTransport() } : {}),
      });
      return t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed.bytes,
      });
    }

    async function actDetails(recipientId: string) {
      const row = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('id', '=', recipientId)
        .executeTakeFirstOrThrow();
      return JSON.parse(row.act_details!);
    }

    async function settings(values: {
      accept_untrusted_dsc?: boolean;
      accept_dsc_identity_mismatch?: boolean;
      require_dsc_identity_match?: boolean;
    }) {
      const admin = await t.server.login(t.account.email, t.account.password);
      const saved = await t.server.request('PUT', `${LEGACY}/account/settings/`, {
        token: admin,
        json: { allowed_origins: [], ...values },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      return saved.json();
    }

    async function refusedWith(signer: SignatureProvider, reason: string) {
      const { draft, base } = await dscEnvelope();
      const response = await signAndUpload(base, signer);
      assert.equal(response.statusCode, 422, response.body);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.equal(response.json().code, 'dsc_certificate_untrusted', response.body);
      assert.equal(response.json().reason, reason, response.body);
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(!revisions.some((r) => r.act === 'signed'), 'nothing was stored');
      return response.json();
    }

    test('a chain to a configured anchor with a good OCSP answer: accepted, recorded, B-LT in the final PDF, shown on the certificate', async () => {
      const pki = trust.get();
      const asha = pki.issue({ commonName: 'Asha Rao', email: 'asha@example.com', policies: ['2.16.356.100.2.3'] });
      const { draft, base } = await dscEnvelope();
      const before = pki.responder.requests;
      const response = await signAndUpload(base, await pki.signer(asha), 'B-T');
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(pki.responder.requests > before, 'the OCSP responder was asked');

      const details = await actDetails(draft.recipientIds[0]!);
      assert.equal(details.trust, 'trusted');
      assert.equal(details.trust_reason, null);
      assert.equal(details.name_match, true);
      assert.equal(details.email_match, true);
      const validation = details.certificate_validation;
      assert.equal(validation.chain_status, 'valid');
      assert.equal(validation.chain.length, 3);
      assert.equal(validation.chain[0].serial, asha.serialHex);
      assert.match(validation.anchor, /Mohar DSC Test Root CA/);
      assert.equal(validation.revocation.status, 'good');
      assert.equal(validation.revocation.source, 'ocsp');
      assert.equal(validation.signing_time_source, 'timestamp', 'the TSA chains to the anchor');
      assert.ok(details.validation_data.ocsps.length >= 1, 'the OCSP answer is kept for the /DSS');
      assert.equal(details.certificate.cca_class, 'Class 3');

      await t.server.runJobs();
      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.equal(status.status, 'completed');
      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      const report = verifyPdf(final);
      const dsc = report.signatures.find((s) => s.signer?.subject.includes('Asha Rao'));
      assert.equal(dsc?.padesLevel, 'B-LT', 'DSS with the chain and OCSP answer, no TSA configured on the server');
      assert.equal(report.valid, true);
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.equal(revisions.at(-1)?.act, 'validation_data', 'completion appended the /DSS revision');
      const poppler = pdfsigVerdicts(final);
      assert.ok(poppler.valid.length >= 1 && poppler.valid.every(Boolean), poppler.output);
      assert.match(poppler.output, /PAdES|ETSI\.CAdES\.detached/);

      const certificate = await t.server.request('GET', `${API}/envelopes/${draft.id}/audit-trail/certificate`, {
        key: t.account.key,
      });
      assert.equal(certificate.statusCode, 200, certificate.body);
      const text = pdftotext(certificate.rawPayload);
      for (const expected of [
        'DSC certificate subject',
        'CN=Asha Rao',
        'DSC certificate issuer',
        'Intermediate CA',
        `DSC certificate serial: ${asha.serialHex.toUpperCase()}`,
        'DSC certificate validity',
        'CCA class: Class 3',
        'DSC trust: trusted',
        'Chain status: valid',
        'Revocation status: good by OCSP, checked',
        'trusted timestamp',
      ]) {
        assert.ok(text.includes(expected), `the certificate shows "${expected}":\n${text}`);
      }
    });

    test('a signature timestamp from a TSA that is not trusted does not count: the server clock is the signing time', async () => {
      const rogue = createTestPki({ name: 'Rogue' });
      const rogueCredential = rogue.issueTsa();
      const rogueTsa = await startTsa({
        certPem: rogueCredential.certPem,
        keyPem: rogueCredential.keyPem,
        chainPem: rogue.intermediate.certPem + rogue.root.certPem,
      });
      try {
        const pki = trust.get();
        const asha = pki.issue({ commonName: 'Asha Rao', email: 'asha@example.com' });
        const { draft, base } = await dscEnvelope();
        const response = await signAndUpload(base, await pki.signer(asha), 'B-T', rogueTsa.url);
        assert.equal(response.statusCode, 200, response.body);
        const validation = (await actDetails(draft.recipientIds[0]!)).certificate_validation;
        assert.equal(validation.signing_time_source, 'server_clock');
        assert.ok(
          validation.problems.some((p: string) => /TSA is not trusted/.test(p)),
          JSON.stringify(validation.problems),
        );
      } finally {
        await rogueTsa.close();
        rogue.cleanup();
      }
    });

    test('a self-signed certificate: unknown_issuer', async () => {
      const selfSigned = await makeTestCertificate({ name: 'Asha Rao', email: 'asha@example.com' }, new Date());
      await refusedWith(selfSigned.signer, 'unknown_issuer');
    });

    test('an expired certificate: expired', async () => {
      const { pki } = trust.get();
      const old = pki.issueExpired({ commonName: 'Asha Rao', email: 'asha@example.com' });
      trust.get().register(old.certPem);
      await refusedWith(await trust.get().signer(old), 'expired');
    });

    test('a certificate that starts tomorrow: not_yet_valid, not expired', async () => {
      const { pki } = trust.get();
      const day = 86_400_000;
      const early = pki.issueExpired({
        commonName: 'Asha Rao',
        email: 'asha@example.com',
        notBefore: new Date(Date.now() + day),
        notAfter: new Date(Date.now() + 365 * day),
      });
      trust.get().register(early.certPem);
      const problem = await refusedWith(await trust.get().signer(early), 'not_yet_valid');
      assert.match(problem.detail, /not yet valid/);
    });

    test('a revoked certificate (OCSP says revoked): revoked', async () => {
      const revoked = trust.get().issue({ commonName: 'Asha Rao', email: 'asha@example.com' });
      trust.get().responder.revoke(revoked.certPem, { reason: 'keyCompromise' });
      const problem = await refusedWith(await trust.get().signer(revoked), 'revoked');
      assert.match(problem.detail, /revoked/);
    });

    test('OCSP down and no CRL: revocation_unknown', async () => {
      const unreachable = trust
        .get()
        .issue({ commonName: 'Asha Rao', email: 'asha@example.com', ocspUrl: 'http://127.0.0.1:9/ocsp', crlUrl: null });
      await refusedWith(await trust.get().signer(unreachable), 'revocation_unknown');
    });

    test('CRL only (no OCSP URL): judged by the CRL', async () => {
      const pki = trust.get();
      const good = pki.issue({ commonName: 'Asha Rao', email: 'asha@example.com', ocspUrl: null });
      const { draft, base } = await dscEnvelope();
      const response = await signAndUpload(base, await pki.signer(good));
      assert.equal(response.statusCode, 200, response.body);
      const details = await actDetails(draft.recipientIds[0]!);
      assert.equal(details.certificate_validation.revocation.status, 'good');
      assert.equal(details.certificate_validation.revocation.source, 'crl');
      assert.equal(details.certificate_validation.revocation.url, pki.responder.crlUrl);

      const revoked = pki.issue({ commonName: 'Asha Rao', email: 'asha@example.com', ocspUrl: null });
      pki.responder.revoke(revoked.certPem);
      await refusedWith(await pki.signer(revoked), 'revoked');
    });

    test('an intermediate missing from the CMS is fetched from AIA caIssuers (guarded transport, loopback allowed)', async () => {
      const pki = trust.get();
      const asha = pki.issue({ commonName: 'Asha Rao', email: 'asha@example.com' });
      const bare = await softwareSigner({ keyPem: asha.keyPem, certificate: asha.certDer, chain: [] });
      const { draft, base } = await dscEnvelope();
      const response = await signAndUpload(base, bare);
      assert.equal(response.statusCode, 200, response.body);
      const details = await actDetails(draft.recipientIds[0]!);
      assert.equal(details.trust, 'trusted');
      assert.equal(details.certificate_validation.chain.length, 3);
    });

    test('keyUsage keyEncipherment only: not_for_signing', async () => {
      const encipher = trust
        .get()
        .issue({ commonName: 'Asha Rao', email: 'asha@example.com', keyUsage: 'keyEncipherment' });
      await refusedWith(await trust.get().signer(encipher), 'not_for_signing');
    });

    test('accept_untrusted_dsc: an untrusted certificate is accepted, recorded and shown as untrusted', async () => {
      const saved = await settings({ accept_untrusted_dsc: true });
      assert.equal(saved.accept_untrusted_dsc, true);
      assert.equal(saved.require_dsc_identity_match, false);
      assert.equal(saved.accept_dsc_identity_mismatch, false);
      try {
        const selfSigned = await makeTestCertificate({ name: 'Asha Rao', email: 'asha@example.com' }, new Date());
        const { draft, base } = await dscEnvelope();
        const response = await signAndUpload(base, selfSigned.signer);
        assert.equal(response.statusCode, 200, response.body);
        const details = await actDetails(draft.recipientIds[0]!);
        assert.equal(details.trust, 'untrusted');
        assert.equal(details.trust_reason, 'unknown_issuer');
        assert.equal(details.certificate_validation.chain_status, 'unknown_issuer');
        await t.server.runJobs();
        const certificate = await t.server.request('GET', `${API}/envelopes/${draft.id}/audit-trail/certificate`, {
          key: t.account.key,
        });
        assert.equal(certificate.statusCode, 200, certificate.body);
        assert.match(pdftotext(certificate.rawPayload), /DSC trust: UNTRUSTED \(unknown_issuer\)/);
      } finally {
        await settings({ accept_untrusted_dsc: false });
      }
    });

    test('identity: another person is refused by default (dsc_identity_mismatch), recorded with accept_dsc_identity_mismatch', async () => {
      const pki = trust.get();
      const other = pki.issue({ commonName: 'Someone Else', email: 'else@example.com' });
      const { draft, base } = await dscEnvelope();
      const refused = await signAndUpload(base, await pki.signer(other));
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(refused.json().code, 'dsc_identity_mismatch');
      assert.deepEqual([refused.json().name_match, refused.json().email_match], [false, false]);
      assert.equal((await actDetails(draft.recipientIds[0]!)).trust, undefined, 'nothing recorded');

      await settings({ accept_dsc_identity_mismatch: true });
      try {
        const second = await dscEnvelope();
        const accepted = await signAndUpload(second.base, await pki.signer(other));
        assert.equal(accepted.statusCode, 200, accepted.body);
        const details = await actDetails(second.draft.recipientIds[0]!);
        assert.equal(details.trust, 'trusted');
        assert.equal(details.name_match, false);
        assert.equal(details.email_match, false);
      } finally {
        await settings({ accept_dsc_identity_mismatch: false });
      }
      await settings({ require_dsc_identity_match: true });
      try {
        const matching = pki.issue({ commonName: 'ASHA  RAO', email: 'Asha@Example.com' });
        const third = await dscEnvelope();
        const ok = await signAndUpload(third.base, await pki.signer(matching));
        assert.equal(ok.statusCode, 200, `case and spacing do not matter: ${ok.body}`);
      } finally {
        await settings({ require_dsc_identity_match: false });
      }
    });
  });
}
