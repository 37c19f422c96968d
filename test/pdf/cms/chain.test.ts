/**
 * Path building and judging over DER (pdf/cms/chain.ts) with a real openssl test PKI: anchored paths, a
 * missing intermediate, self-signed, expired, not yet valid, key usage, CA constraints, and an anchor's own validity.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCertificatePath, judgeCertificatePath } from '../../../pdf/cms/chain.js';
import { createTestPki, type TestPki } from '../../support/pki.js';

let pki: TestPki;
before(() => {
  pki = createTestPki({ name: 'Chain Test' });
});
after(() => pki?.cleanup());

describe('buildCertificatePath / judgeCertificatePath', () => {
  test('signer -> intermediate -> anchor root: anchored and sound now', () => {
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const built = buildCertificatePath(signer.certDer, [pki.intermediate.certDer], [pki.root.certDer]);
    assert.equal(built.anchored, true);
    assert.deepEqual(
      built.path.map((c) => c.serialHex.toLowerCase()),
      [signer.serialHex, pki.intermediate.serialHex, pki.root.serialHex].map((s) => s.toLowerCase()),
    );
    assert.deepEqual(judgeCertificatePath(built, new Date()), { problem: null, problems: [] });
  });

  test('the intermediate as the configured anchor ends the path there', () => {
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const built = buildCertificatePath(signer.certDer, [], [pki.intermediate.certDer]);
    assert.equal(built.anchored, true);
    assert.equal(built.path.length, 2);
  });

  test('a missing intermediate: unanchored, the caller is told whose issuer to fetch', () => {
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const built = buildCertificatePath(signer.certDer, [], [pki.root.certDer]);
    assert.equal(built.anchored, false);
    assert.equal(built.missingIssuerOf?.serialHex.toLowerCase(), signer.serialHex.toLowerCase());
    assert.equal(judgeCertificatePath(built, new Date()).problem, 'unknown_issuer');
  });

  test('a chain to a root that is not an anchor, or a self-signed certificate: unknown_issuer', () => {
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const other = createTestPki({ name: 'Other' });
    try {
      const built = buildCertificatePath(signer.certDer, [...pki.chainDer], [other.root.certDer]);
      assert.equal(built.anchored, false);
      assert.equal(built.missingIssuerOf, null, 'it ends at a self-signed root');
      const judged = judgeCertificatePath(built, new Date());
      assert.equal(judged.problem, 'unknown_issuer');
      assert.match(judged.problems[0]!, /self-signed and not a trust anchor/);
    } finally {
      other.cleanup();
    }
  });

  test('an expired signer, and any certificate of the path outside its validity at the signing time: expired', () => {
    const old = pki.issueExpired({ commonName: 'Old Signer' });
    const built = buildCertificatePath(old.certDer, [...pki.chainDer], [pki.root.certDer]);
    assert.equal(built.anchored, true);
    assert.equal(judgeCertificatePath(built, new Date()).problem, 'expired');
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao', days: 365 * 30 });
    const long = buildCertificatePath(signer.certDer, [...pki.chainDer], [pki.root.certDer]);
    const judged = judgeCertificatePath(long, new Date(Date.now() + 11 * 365 * 86_400_000));
    assert.equal(judged.problem, 'expired', 'the root (10 years) has expired by then, though the signer has not');
    assert.ok(judged.problems.some((p) => p.includes('Root CA')));
  });

  test('a certificate of the path that starts after the signing time: not_yet_valid, never expired', () => {
    const day = 86_400_000;
    const tomorrow = pki.issueExpired({
      commonName: 'Future Signer',
      notBefore: new Date(Date.now() + day),
      notAfter: new Date(Date.now() + 365 * day),
    });
    const built = buildCertificatePath(tomorrow.certDer, [...pki.chainDer], [pki.root.certDer]);
    assert.equal(built.anchored, true);
    const judged = judgeCertificatePath(built, new Date());
    assert.equal(judged.problem, 'not_yet_valid');
    assert.ok(judged.problems.some((p) => p.includes('Future Signer') && p.includes('not yet valid')));
    assert.equal(judgeCertificatePath(built, new Date(Date.now() + 2 * day)).problem, null, 'valid once it starts');

    // A signer valid since 2020 under an intermediate and a root made today: at a 2025 signing time the
    // signer is fine, its issuers are not valid yet.
    const early = pki.issueExpired({
      commonName: 'Early Signer',
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date(Date.now() + 365 * day),
    });
    const path = buildCertificatePath(early.certDer, [...pki.chainDer], [pki.root.certDer]);
    const issuersLater = judgeCertificatePath(path, new Date('2025-01-01T00:00:00Z'));
    assert.equal(issuersLater.problem, 'not_yet_valid');
    assert.ok(!issuersLater.problems.some((p) => p.includes('Early Signer')), issuersLater.problems.join('; '));
    assert.ok(issuersLater.problems.some((p) => p.includes('Intermediate CA') && p.includes('not yet valid')));
    assert.ok(issuersLater.problems.some((p) => p.includes('Root CA') && p.includes('not yet valid')));
  });

  test('key usage without digitalSignature or nonRepudiation: not_for_signing', () => {
    const encipher = pki.issueSoftwareSigner({ commonName: 'Asha Rao', keyUsage: 'keyEncipherment' });
    const judged = judgeCertificatePath(
      buildCertificatePath(encipher.certDer, [...pki.chainDer], [pki.root.certDer]),
      new Date(),
    );
    assert.equal(judged.problem, 'not_for_signing');
    const nonRepudiation = pki.issueSoftwareSigner({ commonName: 'Asha Rao', keyUsage: 'nonRepudiation' });
    assert.equal(
      judgeCertificatePath(
        buildCertificatePath(nonRepudiation.certDer, [...pki.chainDer], [pki.root.certDer]),
        new Date(),
      ).problem,
      null,
    );
  });

  test('an end-entity certificate cannot act as an issuer: no path through it', () => {
    // A certificate "issued" by a signer is not found as issued by it unless the signature verifies; a
    // leaf is never accepted as a CA: build the path by hand and judge it.
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const built = buildCertificatePath(signer.certDer, [...pki.chainDer], [pki.root.certDer]);
    const forged = { ...built, path: [built.path[0]!, built.path[0]!, ...built.path.slice(1)] };
    const judged = judgeCertificatePath(forged, new Date());
    assert.equal(judged.problem, 'bad_ca');
    assert.match(judged.problems.join('\n'), /not a CA certificate/);
  });

  test('unreadable candidates are skipped, not fatal', () => {
    const signer = pki.issueSoftwareSigner({ commonName: 'Asha Rao' });
    const built = buildCertificatePath(
      signer.certDer,
      [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]), ...pki.chainDer],
      [pki.root.certDer],
    );
    assert.equal(built.anchored, true);
  });
});
