/**
 * inspectCms on signatures other tools make (issue 26 point 8): sound signatures that are not PAdES baseline get
 * notes, never problems; a CMS without signed attributes is checked over the content itself; Ed25519 and Ed448
 * signers verify (RFC 8419), with the digest algorithm the RFC pairs them with.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { inspectCms } from '../../../pdf/cms/index.js';
import { cmsVariants, edDsaCms } from '../../support/cms-variants.js';

const CONTENT = Buffer.from('%PDF-1.7 the bytes a /ByteRange names\n', 'latin1');
const OTHER = Buffer.from('%PDF-1.7 the bytes a /ByteRange names, changed\n', 'latin1');

describe('inspectCms on CMS made by other tools', () => {
  const variants = cmsVariants();
  after(() => variants.cleanup());

  test('a signing-time attribute and no ESS attribute: sound, noted as not PAdES baseline', () => {
    const cms = variants.sign(CONTENT, variants.signer('rsa'), ['-md', 'sha256']);
    const info = inspectCms(cms, { content: CONTENT });
    assert.equal(info.hasSigningTime, true);
    assert.deepEqual(info.problems, []);
    assert.equal(info.signatureValid, true);
    assert.equal(info.messageDigestMatches, true);
    assert.ok(
      info.baselineNotes.some((n) => /signing-time/.test(n)),
      info.baselineNotes.join('; '),
    );
    assert.ok(
      info.baselineNotes.some((n) => /no ESS/.test(n)),
      info.baselineNotes.join('; '),
    );
    assert.equal(inspectCms(cms, { content: OTHER }).messageDigestMatches, false);
  });

  test('no signed attributes: the signature over the content itself verifies, and fails over other content', () => {
    const cms = variants.sign(CONTENT, variants.signer('rsa'), ['-noattr', '-md', 'sha256']);
    const info = inspectCms(cms, { content: [CONTENT.subarray(0, 9), CONTENT.subarray(9)] });
    assert.deepEqual(info.problems, []);
    assert.equal(info.signatureValid, true);
    assert.equal(info.messageDigestMatches, true);
    assert.ok(info.baselineNotes.some((n) => /no signed attributes/.test(n)));
    const changed = inspectCms(cms, { content: OTHER });
    assert.equal(changed.signatureValid, false);
    assert.equal(changed.messageDigestMatches, false);
    assert.ok(changed.problems.length > 0);
  });

  for (const [key, digest] of [
    ['ed25519', 'sha512'],
    ['ed448', 'shake256'],
  ] as const) {
    test(`an ${key} signer verifies (digest ${digest}); over other content it does not`, () => {
      const cms = edDsaCms(CONTENT, variants.signer(key));
      const info = inspectCms(cms, { content: CONTENT });
      assert.deepEqual(info.problems, []);
      assert.equal(info.signatureValid, true);
      assert.equal(info.messageDigestMatches, true);
      assert.equal(info.digestAlgorithm, digest);
      assert.match(info.signatureAlgorithm, key === 'ed25519' ? /^Ed25519$/ : /^Ed448$/);
      assert.equal(inspectCms(cms, { content: OTHER }).messageDigestMatches, false);
    });
  }

  test('Ed25519 with a digest RFC 8419 does not pair it with is refused, naming it', () => {
    const cms = edDsaCms(CONTENT, variants.signer('ed25519'), 'sha256');
    const info = inspectCms(cms, { content: CONTENT });
    assert.equal(info.signatureValid, false);
    assert.ok(
      info.problems.some((p) => /sha256 does not fit Ed25519/.test(p)),
      info.problems.join('; '),
    );
  });
});
