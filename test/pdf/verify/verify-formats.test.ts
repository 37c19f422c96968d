/**
 * verifyPdf on signatures made the way other tools make them (issue 26 points 3 and 8): sound signatures are valid
 * whatever their CMS shape (signing-time, no ESS, no signed attributes, Ed25519/Ed448 keys), with "not PAdES
 * baseline" as a note and no PAdES level, never as tampering; signatures whose /SubFilter no validator recognises
 * (adbe.x509.rsa_sha1, a made-up one, none) are invalid, naming it; so is a CMS that encapsulates its own content.
 * Every fixture is made here, at test time.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { formatReport, verifyPdf } from '../../../pdf/verify/index.js';
import { cmsVariants, edDsaCms, rewriteInRevision, signWith } from '../../support/cms-variants.js';
import { makePdf } from '../../support/pdf-fixtures.js';

describe('verifyPdf: sound signatures of other shapes are valid, not PAdES baseline', () => {
  const variants = cmsVariants();
  after(() => variants.cleanup());
  const rsa = (flags: string[]) => (signed: Buffer) => variants.sign(signed, variants.signer('rsa'), flags);

  const cases: [string, (signed: Buffer) => Uint8Array, RegExp | null][] = [
    ['a CMS with a signing-time attribute (and no ESS)', rsa(['-md', 'sha256']), /signing-time/],
    ['a CMS without signed attributes', rsa(['-noattr', '-md', 'sha256']), /no signed attributes/],
    ['an Ed25519 signer', (signed) => edDsaCms(signed, variants.signer('ed25519')), null],
    ['an Ed448 signer', (signed) => edDsaCms(signed, variants.signer('ed448')), null],
  ];
  for (const [label, makeCms, note] of cases) {
    test(`${label}: valid; the same file changed after signing is not`, () => {
      const signed = signWith(makePdf(), makeCms);
      const report = verifyPdf(signed);
      const s = report.signatures[0]!;
      assert.deepEqual(s.problems, []);
      assert.equal(s.digestValid, true);
      assert.equal(s.signatureValid, true);
      assert.equal(s.valid, true);
      assert.equal(report.valid, true);
      if (note) {
        assert.equal(s.padesLevel, null, 'not PAdES baseline');
        assert.ok(
          s.notes.some((n) => note.test(n)),
          s.notes.join('; '),
        );
        assert.match(formatReport(report), /Not PAdES baseline \(still valid\)/);
      } else assert.equal(s.padesLevel, 'B-B');

      const tampered = Buffer.from(signed);
      tampered[100] = tampered[100] === 0x41 ? 0x42 : 0x41;
      const t = verifyPdf(tampered).signatures[0]!;
      assert.equal(t.digestValid, false);
      assert.equal(t.valid, false);
    });
  }

  test('Ed25519 with SHA-256 (RFC 8419 asks for SHA-512): invalid, naming the digest', () => {
    const s = verifyPdf(signWith(makePdf(), (signed) => edDsaCms(signed, variants.signer('ed25519'), 'sha256')))
      .signatures[0]!;
    assert.equal(s.valid, false);
    assert.ok(
      s.problems.some((p) => /sha256 does not fit Ed25519/.test(p)),
      s.problems.join('; '),
    );
  });

  test('a CMS that encapsulates the content (not detached): invalid', () => {
    const s = verifyPdf(signWith(makePdf(), rsa(['-nodetach', '-md', 'sha256']))).signatures[0]!;
    assert.equal(s.valid, false);
    assert.ok(
      s.problems.some((p) => /must be detached/.test(p)),
      s.problems.join('; '),
    );
  });
});

describe('verifyPdf: the /SubFilter of a signature must be one validators recognise', () => {
  const variants = cmsVariants();
  after(() => variants.cleanup());
  const cms = (signed: Buffer) => variants.sign(signed, variants.signer('rsa'), ['-md', 'sha256']);
  const subFilter = (to: string) => (signedBytes: Parameters<typeof rewriteInRevision>[0]) =>
    rewriteInRevision(signedBytes, '/SubFilter /ETSI.CAdES.detached', to);

  for (const [label, rewrite, named] of [
    ['/adbe.x509.rsa_sha1', subFilter('/SubFilter /adbe.x509.rsa_sha1'), /\/SubFilter \/adbe\.x509\.rsa_sha1 is not/],
    ['an unknown /Mohar.Forged', subFilter('/SubFilter /Mohar.Forged'), /\/SubFilter \/Mohar\.Forged is not/],
    ['none', subFilter(''), /no \/SubFilter is not/],
  ] as const) {
    test(`${label}: invalid, naming it, although the CMS inside verifies`, () => {
      const report = verifyPdf(signWith(makePdf(), cms, rewrite));
      const s = report.signatures[0]!;
      assert.equal(s.digestValid, true);
      assert.equal(s.signatureValid, true);
      assert.equal(s.valid, false);
      assert.equal(report.valid, false);
      assert.ok(
        s.problems.some((p) => named.test(p)),
        s.problems.join('; '),
      );
    });
  }

  test('/adbe.pkcs7.detached: valid', () => {
    const s = verifyPdf(signWith(makePdf(), cms, subFilter('/SubFilter /adbe.pkcs7.detached'))).signatures[0]!;
    assert.equal(s.valid, true, s.problems.join('; '));
    assert.equal(s.subFilter, 'adbe.pkcs7.detached');
  });
});
