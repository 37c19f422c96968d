/**
 * The CCA India roots shipped as data: their SHA-256 fingerprints are pinned (../shared/trust/README.md,
 * CCA's published roots); MOHAR_DSC_TRUST_ANCHORS adds a bundle; the expired 2014 root explains an old
 * chain but is itself judged expired after 2024-03-05. (Identity binding: identity.test.ts.)
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildCertificatePath, certInfo, judgeCertificatePath } from '../../../pdf/cms/index.js';
import { ConfigError, parseConfig } from '../../../server/config.js';
import { builtInAnchors, dscTrustAnchors } from '../../../server/domain/trust/anchors.js';
import { createTestPki } from '../../support/pki.js';

const PINNED: Record<string, string> = {
  'cca-india-2022.pem': '9a3fd3176798e842ddcb12c262f11cfacca70a8b84c6ea6fda30842a95a94cd8',
  'cca-india-2022-spl.pem': 'b724689b79b2ef9421ef8f5cc733eb093851b170ee715177005a09f226d8c91a',
  'cca-india-2014.pem': '60109bc6c38328598a112c7a25e38b0f23e5a7511cb815fb64e0c4ff05db7df7',
};
const DIR = new URL('../../../server/trust/anchors/', import.meta.url);
const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');

describe('DSC trust anchors', () => {
  test('exactly the three CCA India roots, with their pinned fingerprints', () => {
    assert.deepEqual(
      readdirSync(DIR)
        .filter((f) => f.endsWith('.pem'))
        .sort(),
      Object.keys(PINNED).sort(),
    );
    for (const [file, fingerprint] of Object.entries(PINNED)) {
      const pem = readFileSync(new URL(file, DIR), 'latin1');
      const der = new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
      assert.equal(sha256(der), fingerprint, file);
    }
    assert.deepEqual(builtInAnchors().map(sha256).sort(), Object.values(PINNED).sort());
    for (const der of builtInAnchors()) assert.match(certInfo(der).subject, /O=India PKI, CN=CCA India 20(14|22)/);
  });

  test('the expired 2014 root anchors its own path but is judged expired after 2024-03-05', () => {
    const root2014 = builtInAnchors().find((d) => sha256(d) === PINNED['cca-india-2014.pem'])!;
    const built = buildCertificatePath(root2014, [], builtInAnchors());
    assert.equal(built.anchored, true);
    assert.ok(!judgeCertificatePath(built, new Date('2020-01-01')).problems.some((p) => /not valid at/.test(p)));
    assert.equal(judgeCertificatePath(built, new Date('2025-01-01')).problem, 'expired');
  });

  test('MOHAR_DSC_TRUST_ANCHORS adds a PEM bundle to the built-in roots; unreadable or empty stops start-up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mohar-anchors-test-'));
    const pki = createTestPki({ name: 'Anchor Test' });
    try {
      writeFileSync(join(dir, 'bundle.pem'), pki.root.certPem + pki.intermediate.certPem);
      const config = parseConfig({ MOHAR_DSC_TRUST_ANCHORS: 'bundle.pem' }, dir);
      assert.equal(config.dscTrustAnchors.length, 2);
      assert.equal(sha256(config.dscTrustAnchors[0]!), sha256(pki.root.certDer));
      assert.equal(dscTrustAnchors(config).length, 5, 'added, never replacing the CCA roots');
      assert.equal(parseConfig({}, dir).dscTrustAnchors.length, 0);
      assert.throws(
        () => parseConfig({ MOHAR_DSC_TRUST_ANCHORS: 'missing.pem' }, dir),
        (e: unknown) => e instanceof ConfigError && e.setting === 'MOHAR_DSC_TRUST_ANCHORS',
      );
      writeFileSync(join(dir, 'empty.pem'), 'no certificates here');
      assert.throws(() => parseConfig({ MOHAR_DSC_TRUST_ANCHORS: 'empty.pem' }, dir), /holds no PEM certificate/);
    } finally {
      pki.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
