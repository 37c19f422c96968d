/**
 * The signing engine's promise, on a real SoftHSM2 token: three signatures in sequence (RSA, ECDSA,
 * RSA with a timestamp) on every kind of input real producers make, and every signature stays valid
 * for pdfsig, qpdf, openssl cms and openssl ts. Earlier revisions stay byte prefixes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MoharError } from '../../common/errors.js';
import { Pkcs11Module, tokenSigner } from '../../native/index.js';
import { inspectCms, softwareSigner } from '../../pdf/cms/index.js';
import { signPades } from '../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../pdf/index.js';
import { verifyPdf } from '../../pdf/verify/index.js';
import { makePdf, qpdfCheck, samples } from '../support/pdf-fixtures.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { loopbackTransport, startTsa, type TestTsa } from '../support/tsa.js';
import { opensslCmsVerify, opensslTsVerify, pdfsigVerdicts, signedParts } from '../support/validators.js';

describe('token signing on real-world inputs', () => {
  let hsm: SoftHsm;
  let module: Pkcs11Module;
  let tsa: TestTsa;
  let someoneElse: SignatureProvider;
  let pinRequests = 0;
  const transport = loopbackTransport();
  const signingTime = new Date();

  before(async () => {
    hsm = createSoftHsm();
    module = await Pkcs11Module.open(hsm.modulePath);
    const tsaCert = hsm.pki.issueTsa();
    tsa = await startTsa({
      certPem: tsaCert.certPem,
      keyPem: tsaCert.keyPem,
      chainPem: hsm.pki.intermediate.certPem + hsm.pki.root.certPem,
    });
    const other = hsm.pki.issueSoftwareSigner({ commonName: 'Someone Else', keyType: 'rsa' });
    someoneElse = await softwareSigner({ keyPem: other.keyPem, certificate: other.certDer, chain: [...hsm.chainDer] });
  });
  after(async () => {
    await tsa?.close();
    await module?.close();
    hsm?.cleanup();
  });

  const tokenKey = (type: 'RSA' | 'EC') =>
    tokenSigner({
      module,
      token: { serial: hsm.tokenSerial },
      certId: hsm.keys.find((k) => k.type === type)!.certificateId!,
      pin: () => {
        pinRequests++;
        return hsm.pin;
      },
    });

  const inputs: [string, () => Buffer | Promise<Buffer>, string?][] = [
    ['classic xref table', () => makePdf({ pages: 2 })],
    ['xref stream with object streams', samples.objectStreams],
    ['linearized', samples.linearized],
    ['earlier incremental update', samples.incrementallyUpdated],
    ['hybrid reference', samples.hybrid],
    ['rotated pages and offset MediaBox', samples.mixedGeometry],
    ['existing empty signature field', samples.emptySignatureField, 'Signature1'],
    [
      'already signed by someone else',
      async () =>
        (await signPades(makePdf({ pages: 2 }), someoneElse, { level: 'B-B', field: { invisible: true }, signingTime }))
          .bytes,
    ],
  ];

  for (const [name, make, existingField] of inputs) {
    test(`${name}: RSA, ECDSA, RSA+timestamp all valid`, async () => {
      const original = await make();
      const earlierSignatures = verifyPdf(original).signatures.length;
      const first = await signPades(original, await tokenKey('RSA'), {
        level: 'B-B',
        field: existingField ? { name: existingField } : { page: 1, rect: { x: 30, y: 30, width: 180, height: 50 } },
        signingTime,
        reason: 'first',
      });
      const second = await signPades(first.bytes, await tokenKey('EC'), {
        level: 'B-B',
        field: { invisible: true },
        signingTime,
        reason: 'second',
      });
      const third = await signPades(second.bytes, await tokenKey('RSA'), {
        level: 'B-T',
        field: { page: 2, rect: { x: 30, y: 100, width: 180, height: 50 } },
        signingTime,
        tsaUrl: tsa.url,
        transport,
        reason: 'third',
      });
      const result = third.bytes;

      for (const earlier of [original, first.bytes, second.bytes]) {
        assert.ok(result.subarray(0, earlier.length).equals(earlier), 'every earlier revision is a byte prefix');
      }
      const check = qpdfCheck(result);
      assert.ok(check.ok, check.output);

      const poppler = pdfsigVerdicts(result);
      assert.equal(poppler.valid.length, earlierSignatures + 3, poppler.output);
      assert.ok(poppler.valid.every(Boolean), poppler.output);

      const report = verifyPdf(result);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
      const ours = report.signatures.slice(earlierSignatures);
      assert.deepEqual(
        ours.map((s) => s.reason),
        ['first', 'second', 'third'],
      );
      assert.deepEqual(
        ours.map((s) => s.padesLevel),
        ['B-B', 'B-B', 'B-T'],
      );
      assert.ok(ours.slice(0, 2).every((s) => s.changesAfter === 'signing'));

      for (const signature of report.signatures) {
        const { data, cms } = signedParts(result, signature.byteRange);
        const verdict = opensslCmsVerify(cms, data, hsm.pki.root.certPath);
        assert.ok(verdict.ok, `openssl cms -verify, signature ${signature.index}: ${verdict.output}`);
      }
      const { cms } = signedParts(result, ours[2]!.byteRange);
      const inspected = inspectCms(cms);
      const token = opensslTsVerify(
        inspected.timestamp!.tokenDer,
        inspected.signatureValue,
        hsm.pki.root.certPath,
        hsm.pki.intermediate.certPem,
      );
      assert.ok(token.ok, token.output);

      // One flipped byte inside the first signed range breaks every signature that covers it.
      const tampered = Buffer.from(result);
      const where = Math.floor(ours[0]!.byteRange[1]! / 2);
      tampered[where] = tampered[where]! ^ 0x01;
      assert.equal(verifyPdf(tampered).valid, false);
    });
  }

  test('a certified P=1 PDF is refused before the PIN is asked', async () => {
    const before = pinRequests;
    await assert.rejects(
      signPades(samples.certified(1), await tokenKey('RSA'), { level: 'B-B', field: { invisible: true }, signingTime }),
      (e: unknown) => e instanceof MoharError && e.code === 'document_locked',
    );
    assert.equal(pinRequests, before);
  });

  test('an encrypted PDF is refused before the PIN is asked', async () => {
    const before = pinRequests;
    await assert.rejects(
      signPades(samples.encrypted(), await tokenKey('EC'), { level: 'B-B', field: { invisible: true }, signingTime }),
      (e: unknown) => e instanceof MoharError && e.code === 'pdf_encrypted',
    );
    assert.equal(pinRequests, before);
  });
});
