/**
 * signPades at every level and verifyPdf, judged also by poppler's pdfsig: a chain of signatures
 * on one document stays valid, tampering and illicit later changes are caught.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { appendUpdate, makePdf } from '../../support/pdf-fixtures.js';
import { loopbackTransport, startTsa, type TestTsa } from '../../support/tsa.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';

function pdfsig(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-pdfsig-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    const run = spawnSync('pdfsig', [join(dir, 'f.pdf')], { encoding: 'utf8' });
    return run.stdout + run.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl ts -verify` over the document timestamp in the /ByteRange gap, independently of Mohar's parser. */
function opensslTimestampVerify(bytes: Buffer, range: number[]): boolean {
  const [, a = 0, b = 0, c = 0] = range;
  const digest = createHash('sha256')
    .update(bytes.subarray(0, a))
    .update(bytes.subarray(b, b + c))
    .digest('hex');
  const padded = Buffer.from(bytes.subarray(a + 1, b - 1).toString('latin1'), 'hex');
  // DER length of the token (SEQUENCE with a long-form length), so padding zeros are cut exactly.
  const lengthBytes = padded[1]! & 0x7f;
  const token = padded.subarray(
    0,
    2 + lengthBytes + padded.subarray(2, 2 + lengthBytes).reduce((n, x) => n * 256 + x, 0),
  );
  const dir = mkdtempSync(join(tmpdir(), 'mohar-ts-'));
  try {
    writeFileSync(join(dir, 'token.der'), token);
    writeFileSync(join(dir, 'chain.pem'), pki.intermediate.certPem);
    const run = spawnSync(
      'openssl',
      [
        'ts',
        '-verify',
        '-digest',
        digest,
        '-in',
        join(dir, 'token.der'),
        '-token_in',
        '-CAfile',
        pki.rootPath,
        '-untrusted',
        join(dir, 'chain.pem'),
      ],
      { encoding: 'utf8' },
    );
    return /Verification: OK/.test(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let pki: TestPki;

describe('PAdES signing and verification', () => {
  let tsa: TestTsa;
  let rsa: SignatureProvider;
  let ec: SignatureProvider;
  const transport = loopbackTransport();
  const at = new Date('2026-11-20T10:00:00Z');

  before(async () => {
    pki = await createTestPki();
    tsa = await startTsa({
      certPem: pki.tsa.certPem,
      keyPem: pki.tsa.keyPem,
      chainPem: pki.intermediate.certPem + pki.root.certPem,
    });
    rsa = await softwareSigner({
      keyPem: pki.rsaSigner.keyPem,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
    ec = await softwareSigner({
      keyPem: pki.ecSigner.keyPem,
      certificate: pki.ecSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
  });
  after(async () => {
    await tsa?.close();
    await pki?.close();
  });

  test('three signatures in sequence (B-B, B-T, B-LTA) all stay valid', async () => {
    const original = makePdf({ pages: 2 });
    const first = await signPades(original, rsa, {
      level: 'B-B',
      field: { page: 1, rect: { x: 50, y: 50, width: 200, height: 60 } },
      signingTime: at,
      name: 'Asha Rao',
      reason: 'Agreed',
    });
    const second = await signPades(first.bytes, ec, {
      level: 'B-T',
      field: { page: 2, rect: { x: 50, y: 50, width: 200, height: 60 } },
      signingTime: at,
      tsaUrl: tsa.url,
      transport,
    });
    const third = await signPades(second.bytes, rsa, {
      level: 'B-LTA',
      field: { invisible: true },
      signingTime: at,
      tsaUrl: tsa.url,
      transport,
    });
    assert.equal(third.revisionsAdded, 3);
    for (const earlier of [original, first.bytes, second.bytes]) {
      assert.ok(third.bytes.subarray(0, earlier.length).equals(earlier), 'earlier revisions are byte prefixes');
    }

    const report = verifyPdf(third.bytes);
    assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
    assert.deepEqual(
      report.signatures.map((s) => s.kind),
      ['signature', 'signature', 'signature', 'document_timestamp'],
    );
    const [s1, s2, s3, ts] = report.signatures;
    assert.equal(s1!.padesLevel, 'B-B');
    assert.equal(s1!.changesAfter, 'signing');
    assert.equal(s1!.name, 'Asha Rao');
    assert.match(s1!.signer!.subject, /CN=/);
    assert.equal(s2!.padesLevel, 'B-T');
    assert.ok(s2!.timestamp?.valid);
    assert.equal(s3!.padesLevel, 'B-LTA');
    assert.equal(s3!.changesAfter, 'ltv');
    assert.equal(ts!.changesAfter, 'none');
    assert.equal(ts!.coversWholeDocument, true);
    assert.deepEqual(
      report.signatures.map((s) => s.revision),
      [2, 3, 4, 6],
    );

    // poppler checks the three CMS signatures; it does not verify RFC 3161 document timestamps, so
    // openssl ts does that one.
    const poppler = pdfsig(third.bytes);
    const verdicts = poppler.match(/Signature Validation: .*/g) ?? [];
    assert.equal(verdicts.length, 4, poppler);
    assert.ok(
      verdicts.slice(0, 3).every((v) => /Signature is Valid/.test(v)),
      poppler,
    );
    assert.equal(opensslTimestampVerify(third.bytes, ts!.byteRange), true);
  });

  test('flipping one byte inside a signed range makes that signature invalid', async () => {
    const signed = await signPades(makePdf({ pages: [{ text: 'Pay 1000 rupees' }] }), rsa, {
      level: 'B-B',
      field: { invisible: true },
      signingTime: at,
    });
    const tampered = Buffer.from(signed.bytes);
    const at1000 = tampered.indexOf('1000');
    assert.ok(at1000 > 0);
    tampered[at1000] = '9'.charCodeAt(0);
    const report = verifyPdf(tampered);
    assert.equal(report.valid, false);
    assert.equal(report.signatures[0]!.digestValid, false);
    assert.match(report.signatures[0]!.problems.join(' '), /changed after signing/);
  });

  test('a later revision that changes page content is reported as other changes', async () => {
    const signed = await signPades(makePdf({ pages: [{ text: 'original' }] }), ec, {
      level: 'B-B',
      field: { invisible: true },
      signingTime: at,
    });
    // Replace page 1's content stream (object numbers of makePdf: 1 catalog, 2 pages, 3 page, 4 content).
    const edited = appendUpdate(signed.bytes, [{ num: 4, dict: '', stream: 'BT /F1 12 Tf 72 700 Td (forged) Tj ET' }]);
    const report = verifyPdf(edited);
    assert.equal(report.signatures[0]!.digestValid, true, 'the signed bytes themselves are intact');
    assert.equal(report.signatures[0]!.changesAfter, 'other');
    assert.equal(report.signatures[0]!.coversWholeDocument, false);
    assert.equal(report.valid, false);
  });

  test('B-T without a TSA, or with a TSA that is down, fails with tsa_unavailable and nothing is signed', async () => {
    await assert.rejects(
      signPades(makePdf(), rsa, { level: 'B-T', field: { invisible: true }, signingTime: at }),
      (e: Error & { code?: string }) => e.code === 'tsa_unavailable',
    );
    await tsa.setFailing('down');
    try {
      await assert.rejects(
        signPades(makePdf(), rsa, {
          level: 'B-T',
          field: { invisible: true },
          signingTime: at,
          tsaUrl: tsa.url,
          transport,
        }),
        (e: Error & { code?: string }) => e.code === 'tsa_unavailable',
      );
    } finally {
      await tsa.setFailing('none');
    }
  });

  test('an unsigned PDF has no signatures and is not "valid"', () => {
    const report = verifyPdf(makePdf());
    assert.deepEqual(report.signatures, []);
    assert.equal(report.valid, false);
  });
});
