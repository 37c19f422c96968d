import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  assembleSignedData,
  buildSignedAttributes,
  createSignedData,
  inspectCms,
  OID,
  softwareSigner,
} from '../../../pdf/cms/index.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { createTestPki, type TestCert, type TestPki } from '../../support/served-pki.js';
import { hex, opensslSync, rejectsWithCode, scratch, throwsWithCode, type Scratch } from './helpers.js';

const CONTENT = Buffer.from('%PDF-1.7 pretend these are the ByteRange bytes of a PDF\n'.repeat(20));
const DIGEST = createHash('sha256').update(CONTENT).digest();

let pki: TestPki;
let tmp: Scratch;
let contentPath: string;

before(async () => {
  pki = await createTestPki();
  tmp = scratch();
  contentPath = tmp.file('content.bin', CONTENT);
});
after(async () => {
  await pki.close();
  tmp.remove();
});

async function signerFor(who: TestCert): Promise<SignatureProvider> {
  return softwareSigner({
    keyPem: who.keyPem,
    certificate: who.certPem,
    chain: [pki.intermediate.certPem, pki.root.der],
  });
}

function opensslVerify(cmsPath: string, content = contentPath): ReturnType<typeof opensslSync> {
  return opensslSync([
    'cms',
    '-verify',
    '-binary',
    '-inform',
    'DER',
    '-in',
    cmsPath,
    '-content',
    content,
    '-CAfile',
    pki.rootPath,
    '-purpose',
    'any',
    '-out',
    '/dev/null',
  ]);
}

describe('createSignedData (PAdES B-B)', () => {
  for (const kind of ['RSA', 'P-256'] as const) {
    test(`${kind}: verifies with openssl cms -verify and with inspectCms`, async () => {
      const who = kind === 'RSA' ? pki.rsaSigner : pki.ecSigner;
      const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(who) });
      const path = tmp.file(`${kind}.p7s`, cms);
      const ok = opensslVerify(path);
      assert.equal(ok.status, 0, ok.out);
      assert.match(ok.out, /Verification successful/);
      // The same CMS against other bytes must fail: the check is real.
      const other = tmp.file('other.bin', Buffer.concat([CONTENT, Buffer.from('x')]));
      assert.notEqual(opensslVerify(path, other).status, 0);

      const info = inspectCms(cms, { content: [CONTENT.subarray(0, 100), CONTENT.subarray(100)] });
      assert.deepEqual(info.problems, []);
      assert.equal(info.signatureValid, true);
      assert.equal(info.messageDigestMatches, true);
      assert.equal(info.detached, true);
      assert.equal(info.hasSigningTime, false);
      assert.deepEqual(info.signingCertificate, { version: 2, hashAlgorithm: 'sha256', matchesSigner: true });
      assert.equal(info.digestAlgorithm, 'sha256');
      assert.equal(info.signatureAlgorithm, kind === 'RSA' ? 'sha256WithRSAEncryption' : 'ecdsa-with-SHA256');
      assert.deepEqual(info.signerCertificate, who.der);
      assert.deepEqual(info.certificates, [who.der, pki.intermediate.der, pki.root.der]);
      assert.equal(info.timestamp, null);
    });
  }

  test('signed attributes are exactly content-type, message-digest, signing-certificate-v2 (openssl print)', async () => {
    const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(pki.rsaSigner) });
    const printed = opensslSync(['cms', '-cmsout', '-print', '-inform', 'DER', '-in', tmp.file('print.p7s', cms)]);
    assert.equal(printed.status, 0, printed.out);
    const signedAttrs = printed.stdout.slice(
      printed.stdout.indexOf('signedAttrs:'),
      printed.stdout.indexOf('signatureAlgorithm:', printed.stdout.indexOf('signedAttrs:')),
    );
    const types = [...signedAttrs.matchAll(/object: (\S+) \(([\d.]+)\)/g)].map((m) => m[2]);
    assert.deepEqual(types, [OID.contentType, OID.messageDigest, OID.signingCertificateV2]);
    assert.doesNotMatch(printed.stdout, /signingTime/i);
    assert.match(signedAttrs, /OBJECT:pkcs7-data/);
    // ESS certHash = SHA-256 of the signer certificate (openssl dumps the SigningCertificateV2 with asn1parse).
    const certHash = createHash('sha256').update(pki.rsaSigner.der).digest('hex').toUpperCase();
    assert.ok(signedAttrs.includes(certHash), 'ESS v2 certHash is the SHA-256 of the signer certificate');
    assert.match(signedAttrs, /cont \[ 4 \]/, 'issuerSerial with a directoryName');
    assert.match(printed.stdout, /d\.issuerAndSerialNumber/);
    assert.match(
      printed.stdout,
      /digestAlgorithm:\s+algorithm: sha256 \(2\.16\.840\.1\.101\.3\.4\.2\.1\)\s+parameter: <ABSENT>/,
    );
    assert.match(printed.stdout, /signatureAlgorithm:\s+algorithm: sha256WithRSAEncryption/);
  });

  test('DER: openssl re-encodes the SignerInfo byte for byte (sorted SET, minimal lengths)', async () => {
    const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(pki.ecSigner) });
    const path = tmp.file('der.p7s', cms);
    const out = tmp.file('der-re.p7s', '');
    const r = opensslSync(['cms', '-cmsout', '-inform', 'DER', '-in', path, '-outform', 'DER', '-out', out]);
    assert.equal(r.status, 0, r.out);
    const signerInfoOf = (der: Uint8Array): string => {
      const sd = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(der).buffer).content });
      return hex(new Uint8Array(sd.signerInfos[0]!.toSchema().toBER(false)));
    };
    assert.equal(signerInfoOf(readFileSync(out)), signerInfoOf(cms));
  });

  test('an EC provider that returns raw r||s is accepted (converted to DER)', async () => {
    const key = createPrivateKey(pki.ecSigner.keyPem);
    const raw: SignatureProvider = {
      certificate: pki.ecSigner.der,
      chain: [pki.intermediate.der],
      keyType: 'EC',
      sign: async (data) => new Uint8Array(nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })),
    };
    const cms = await createSignedData({ messageDigest: DIGEST, signer: raw });
    assert.equal(opensslVerify(tmp.file('raw.p7s', cms)).status, 0);
  });

  test('a provider whose key does not match its certificate → signing_key_invalid', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const wrong: SignatureProvider = {
      certificate: pki.ecSigner.der,
      chain: [],
      keyType: 'EC',
      sign: async (data) => new Uint8Array(nodeSign('sha256', data, { key: privateKey, dsaEncoding: 'der' })),
    };
    await rejectsWithCode(createSignedData({ messageDigest: DIGEST, signer: wrong }), 'signing_key_invalid');
    await rejectsWithCode(
      createSignedData({ messageDigest: DIGEST, signer: { ...wrong, keyType: 'RSA' } }),
      'signing_key_invalid',
    );
  });

  test('prepare / sign elsewhere / assemble gives the same verifiable CMS', async () => {
    const signedAttributes = buildSignedAttributes({ messageDigest: DIGEST, certificate: pki.rsaSigner.der });
    assert.equal(signedAttributes[0], 0x31, 'a DER SET');
    const signature = nodeSign('sha256', signedAttributes, createPrivateKey(pki.rsaSigner.keyPem));
    const cms = assembleSignedData({
      signedAttributes,
      signature,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der],
    });
    assert.equal(opensslVerify(tmp.file('assembled.p7s', cms)).status, 0);
    assert.throws(
      () => buildSignedAttributes({ messageDigest: DIGEST.subarray(0, 20), certificate: pki.rsaSigner.der }),
      RangeError,
    );
  });

  test('the directly encoded SignedData is byte for byte what pkijs builds from the same parts', async () => {
    // The reference: the SignedData assembled through pkijs's object model (how assembleSignedData did it before).
    const viaPkijs = (
      signedAttributes: Uint8Array,
      signature: Uint8Array,
      who: TestCert,
      chain: Uint8Array[],
    ): Uint8Array => {
      const cert = pkijs.Certificate.fromBER(new Uint8Array(who.der).buffer);
      const attrs = asn1js.fromBER(new Uint8Array(signedAttributes).buffer).result as asn1js.Set;
      const sigAlg =
        who === pki.rsaSigner
          ? new pkijs.AlgorithmIdentifier({
              algorithmId: OID.sha256WithRSAEncryption,
              algorithmParams: new asn1js.Null(),
            })
          : new pkijs.AlgorithmIdentifier({ algorithmId: '1.2.840.10045.4.3.2' });
      const signedData = new pkijs.SignedData({
        version: 1,
        digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
        encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
        certificates: [who.der, ...chain].map((der) => pkijs.Certificate.fromBER(new Uint8Array(der).buffer)),
        signerInfos: [
          new pkijs.SignerInfo({
            version: 1,
            sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
            digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
            signedAttrs: new pkijs.SignedAndUnsignedAttributes({
              type: 0,
              attributes: attrs.valueBlock.value.map((a) => new pkijs.Attribute({ schema: a })),
            }),
            signatureAlgorithm: sigAlg,
            signature: new asn1js.OctetString({ valueHex: new Uint8Array(signature).buffer }),
          }),
        ],
      });
      return new Uint8Array(
        new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) })
          .toSchema()
          .toBER(false),
      );
    };
    for (const who of [pki.rsaSigner, pki.ecSigner]) {
      const signedAttributes = buildSignedAttributes({ messageDigest: DIGEST, certificate: who.der });
      const signature = nodeSign(
        'sha256',
        signedAttributes,
        who === pki.rsaSigner
          ? createPrivateKey(who.keyPem)
          : { key: createPrivateKey(who.keyPem), dsaEncoding: 'der' },
      );
      for (const chain of [[], [pki.intermediate.der], [pki.intermediate.der, pki.root.der]]) {
        const ours = assembleSignedData({ signedAttributes, signature, certificate: who.der, chain });
        assert.equal(
          hex(ours),
          hex(viaPkijs(signedAttributes, signature, who, chain)),
          `${who === pki.rsaSigner ? 'RSA' : 'EC'} with ${chain.length} chain certificates`,
        );
      }
    }
    // The signed attributes must be a SET OF Attribute; anything else is refused, not carried.
    const signedAttributes = buildSignedAttributes({ messageDigest: DIGEST, certificate: pki.ecSigner.der });
    const notAttributes = Uint8Array.from([0x31, 0x03, 0x02, 0x01, 0x01]);
    const key = { key: createPrivateKey(pki.ecSigner.keyPem), dsaEncoding: 'der' as const };
    assert.throws(
      () =>
        assembleSignedData({
          signedAttributes: notAttributes,
          signature: nodeSign('sha256', notAttributes, key),
          certificate: pki.ecSigner.der,
        }),
      RangeError,
    );
    const asSequence = Uint8Array.from([0x30, ...signedAttributes.subarray(1)]);
    assert.throws(
      () =>
        assembleSignedData({
          signedAttributes: asSequence,
          signature: nodeSign('sha256', asSequence, key),
          certificate: pki.ecSigner.der,
        }),
      RangeError,
    );
  });

  test('an ESS signing-certificate-v2 naming another certificate is reported', () => {
    const signedAttributes = buildSignedAttributes({ messageDigest: DIGEST, certificate: pki.ecSigner.der });
    const signature = nodeSign('sha256', signedAttributes, createPrivateKey(pki.rsaSigner.keyPem));
    const cms = assembleSignedData({ signedAttributes, signature, certificate: pki.rsaSigner.der });
    const info = inspectCms(cms, { contentDigest: DIGEST });
    assert.equal(info.signatureValid, true);
    assert.deepEqual(info.signingCertificate, { version: 2, hashAlgorithm: 'sha256', matchesSigner: false });
    assert.ok(info.problems.some((p) => /ESS/.test(p)));
  });

  test('tampering is detected by inspectCms and openssl', async () => {
    const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(pki.rsaSigner) });
    const bad = Uint8Array.from(cms);
    bad[bad.length - 10]! ^= 0x01; // inside the RSA signature value
    const info = inspectCms(bad, { contentDigest: DIGEST });
    assert.equal(info.signatureValid, false);
    assert.equal(info.messageDigestMatches, true);
    assert.ok(
      info.problems.some((p) => /does not verify/.test(p)),
      info.problems.join('; '),
    );
    assert.notEqual(opensslVerify(tmp.file('bad.p7s', bad)).status, 0);
    const otherDigest = inspectCms(cms, { contentDigest: createHash('sha256').update('other').digest() });
    assert.equal(otherDigest.messageDigestMatches, false);
    assert.equal(otherDigest.signatureValid, true);
  });
});

describe('inspectCms on CMS made by openssl', () => {
  test('RSA-PSS with signing-time: signature verifies, signing-time reported', () => {
    const out = tmp.file('pss.p7s', '');
    const r = opensslSync([
      'cms',
      '-sign',
      '-binary',
      '-in',
      contentPath,
      '-signer',
      pki.rsaSigner.certPath,
      '-inkey',
      pki.rsaSigner.keyPath,
      '-md',
      'sha256',
      '-keyopt',
      'rsa_padding_mode:pss',
      '-outform',
      'DER',
      '-out',
      out,
    ]);
    assert.equal(r.status, 0, r.out);
    const info = inspectCms(readFileSync(out), { content: CONTENT });
    assert.equal(info.signatureValid, true, info.problems.join('; '));
    assert.match(info.signatureAlgorithm, /^RSASSA-PSS\/sha256$/);
    assert.equal(info.messageDigestMatches, true);
    assert.equal(info.hasSigningTime, true);
    assert.ok(info.signingTime instanceof Date);
    // Not PAdES baseline, yet sound: noted apart from the problems (which make a signature invalid).
    assert.ok(info.baselineNotes.some((p) => /signing-time/.test(p)));
    assert.ok(!info.problems.some((p) => /signing-time/.test(p)), info.problems.join('; '));
  });

  test('ECDSA from openssl verifies', () => {
    const out = tmp.file('ec-openssl.p7s', '');
    const r = opensslSync([
      'cms',
      '-sign',
      '-binary',
      '-in',
      contentPath,
      '-signer',
      pki.ecSigner.certPath,
      '-inkey',
      pki.ecSigner.keyPath,
      '-md',
      'sha256',
      '-outform',
      'DER',
      '-out',
      out,
    ]);
    assert.equal(r.status, 0, r.out);
    const info = inspectCms(readFileSync(out), { content: CONTENT });
    assert.equal(info.signatureValid, true, info.problems.join('; '));
    assert.equal(info.messageDigestMatches, true);
  });
});

describe('malformed CMS → invalid_signature_data', () => {
  test('garbage, truncation, wrong content type, trailing bytes', async () => {
    const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(pki.ecSigner) });
    throwsWithCode(() => inspectCms(new Uint8Array([1, 2, 3, 4])), 'invalid_signature_data');
    throwsWithCode(() => inspectCms(new Uint8Array(0)), 'invalid_signature_data');
    throwsWithCode(() => inspectCms(cms.subarray(0, cms.length - 30)), 'invalid_signature_data');
    throwsWithCode(() => inspectCms(pki.rsaSigner.der), 'invalid_signature_data');
    // ContentInfo { id-data, [0] OCTET STRING }
    throwsWithCode(
      () =>
        inspectCms(
          Uint8Array.from([
            0x30, 0x11, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01, 0xa0, 0x04, 0x04, 0x02, 0x41,
            0x42,
          ]),
        ),
      'invalid_signature_data',
    );
    throwsWithCode(() => inspectCms(Buffer.concat([cms, Buffer.from('junk')])), 'invalid_signature_data');
  });

  test('zero padding from a /Contents placeholder is accepted', async () => {
    const cms = await createSignedData({ messageDigest: DIGEST, signer: await signerFor(pki.ecSigner) });
    const info = inspectCms(Buffer.concat([cms, Buffer.alloc(500)]), { contentDigest: DIGEST });
    assert.equal(info.paddingBytes, 500);
    assert.equal(info.signatureValid, true);
  });
});

describe('softwareSigner', () => {
  test('PKCS#12 from openssl (OpenSSL 3 defaults): key, certificate and chain come from the file', async () => {
    const p12 = tmp.file('signer.p12', '');
    const r = opensslSync([
      'pkcs12',
      '-export',
      '-inkey',
      pki.rsaSigner.keyPath,
      '-in',
      pki.rsaSigner.certPath,
      '-certfile',
      pki.intermediate.certPath,
      '-passout',
      'pass:s3cret pass',
      '-out',
      p12,
    ]);
    assert.equal(r.status, 0, r.out);
    const signer = await softwareSigner({ pkcs12: readFileSync(p12), passphrase: 's3cret pass' });
    assert.equal(signer.keyType, 'RSA');
    assert.deepEqual(signer.certificate, pki.rsaSigner.der);
    assert.deepEqual(signer.chain, [pki.intermediate.der]);
    const cms = await createSignedData({ messageDigest: DIGEST, signer });
    assert.equal(opensslVerify(tmp.file('p12.p7s', cms)).status, 0);
    await rejectsWithCode(softwareSigner({ pkcs12: readFileSync(p12), passphrase: 'wrong' }), 'signing_key_invalid');
    await rejectsWithCode(
      softwareSigner({ pkcs12: new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x03]), passphrase: 'x' }),
      'signing_key_invalid',
    );
  });

  test('legacy PKCS#12 (-legacy): usable when the certificate is given, otherwise a clear error', async (t) => {
    const p12 = tmp.file('legacy.p12', '');
    const r = opensslSync([
      'pkcs12',
      '-export',
      '-legacy',
      '-inkey',
      pki.ecSigner.keyPath,
      '-in',
      pki.ecSigner.certPath,
      '-passout',
      'pass:pw',
      '-out',
      p12,
    ]);
    if (r.status !== 0) {
      t.skip('openssl cannot write legacy PKCS#12 here (no legacy provider)');
      return;
    }
    // The key bag (PKCS#12 3DES) is decrypted by node:crypto; the RC2-40 certificate bag is not readable.
    const e = await rejectsWithCode(
      softwareSigner({ pkcs12: readFileSync(p12), passphrase: 'pw' }),
      'signing_key_invalid',
    );
    assert.match(e.message, /legacy PKCS#12 encryption is not supported/);
    const signer = await softwareSigner({
      pkcs12: readFileSync(p12),
      passphrase: 'pw',
      certificate: pki.ecSigner.certPem,
    });
    assert.equal(signer.keyType, 'EC');
    assert.deepEqual(signer.certificate, pki.ecSigner.der);
  });

  test('encrypted PKCS#8 PEM, and mismatched or missing inputs', async () => {
    const encrypted = createPrivateKey(pki.ecSigner.keyPem).export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'pem pass',
    }) as string;
    const signer = await softwareSigner({ keyPem: encrypted, passphrase: 'pem pass', certificate: pki.ecSigner.der });
    assert.equal(signer.keyType, 'EC');
    const cms = await createSignedData({ messageDigest: DIGEST, signer });
    assert.equal(inspectCms(cms, { contentDigest: DIGEST }).signatureValid, true);
    await rejectsWithCode(
      softwareSigner({ keyPem: encrypted, passphrase: 'nope', certificate: pki.ecSigner.der }),
      'signing_key_invalid',
    );
    await rejectsWithCode(
      softwareSigner({ keyPem: pki.rsaSigner.keyPem, certificate: pki.ecSigner.certPem }),
      'signing_key_invalid',
    );
    await rejectsWithCode(softwareSigner({ keyPem: pki.rsaSigner.keyPem }), 'signing_key_invalid');
    await rejectsWithCode(softwareSigner({ certificate: pki.rsaSigner.certPem }), 'signing_key_invalid');
  });
});
