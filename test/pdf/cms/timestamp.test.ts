import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import {
  addSignatureTimestamp,
  addUnsignedAttribute,
  checkTimestampToken,
  OID,
  createSignedData,
  inspectCms,
  requestDocumentTimestamp,
  requestTimestamp,
  signatureValueOf,
  softwareSigner,
} from '../../../pdf/cms/index.js';
import type { HttpTransport } from '../../../pdf/ports.js';
import { childrenOf, readTlv } from '../../../pdf/cms/der.js';
import { loopbackTransport, startTsa, type TestTsa, type TsaFailMode } from '../../support/tsa.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';
import { hex, opensslSync, rejectsWithCode, scratch, type Scratch } from './helpers.js';

const CONTENT = Buffer.from('ByteRange bytes '.repeat(100));
const DIGEST = createHash('sha256').update(CONTENT).digest();

let pki: TestPki;
let tsa: TestTsa;
let tmp: Scratch;
let transport: HttpTransport;

before(async () => {
  pki = await createTestPki();
  tsa = await startTsa({ certPem: pki.tsa.certPem, keyPem: pki.tsa.keyPem, chainPem: pki.intermediate.certPem });
  tmp = scratch();
  transport = loopbackTransport();
});
after(async () => {
  await tsa.close();
  await pki.close();
  tmp.remove();
});
beforeEach(async () => {
  await tsa.setFailing('none');
});

/** `openssl ts -verify` of a token against the test root, over data or a digest. */
function tsVerify(
  token: Uint8Array,
  over: { data: Uint8Array } | { digest: Uint8Array },
): ReturnType<typeof opensslSync> {
  const tokenPath = tmp.file(`token-${Math.random()}.der`, token);
  const what =
    'data' in over ? ['-data', tmp.file(`data-${Math.random()}.bin`, over.data)] : ['-digest', hex(over.digest)];
  return opensslSync([
    'ts',
    '-verify',
    ...what,
    '-in',
    tokenPath,
    '-token_in',
    '-CAfile',
    pki.rootPath,
    '-untrusted',
    pki.intermediate.certPath,
  ]);
}

/** Hex of the SignedData fields before SignerInfos, and of each field of the first SignerInfo. */
function signedDataParts(cms: Uint8Array): { before: string[]; signerInfo: string[] } {
  const ci = readTlv(cms, 0);
  const sd = childrenOf(cms, childrenOf(cms, childrenOf(cms, ci)[1]!)[0]!);
  const hexOf = (t: { start: number; end: number }): string => hex(cms.subarray(t.start, t.end));
  const signerInfo = childrenOf(cms, childrenOf(cms, sd.at(-1)!)[0]!);
  return { before: sd.slice(0, -1).map(hexOf), signerInfo: signerInfo.map(hexOf) };
}

async function signed(kind: 'RSA' | 'EC'): Promise<Uint8Array> {
  const who = kind === 'RSA' ? pki.rsaSigner : pki.ecSigner;
  const signer = await softwareSigner({
    keyPem: who.keyPem,
    certificate: who.der,
    chain: [pki.intermediate.der, pki.root.der],
  });
  return createSignedData({ messageDigest: DIGEST, signer });
}

describe('requestTimestamp', () => {
  test('a checked token from a real TSA: openssl ts -verify agrees', async () => {
    const before = tsa.requests;
    const t0 = Date.now();
    const ts = await requestTimestamp(transport, tsa.url, DIGEST);
    assert.equal(tsa.requests, before + 1);
    assert.ok(Math.abs(ts.genTime.getTime() - t0) < 5000, 'genTime is the TSA clock (same machine)');
    assert.deepEqual(ts.tsaCertificate, pki.tsa.der);
    assert.deepEqual(ts.certificates, [pki.tsa.der, pki.intermediate.der]);
    const v = tsVerify(ts.tokenDer, { digest: DIGEST });
    assert.equal(v.status, 0, v.out);
    assert.match(v.out, /Verification: OK/);
    const wrong = tsVerify(ts.tokenDer, { digest: createHash('sha256').update('other').digest() });
    assert.notEqual(wrong.status, 0);

    const check = checkTimestampToken(ts.tokenDer, { digest: DIGEST });
    assert.deepEqual(check.problems, []);
    assert.equal(check.signatureValid, true);
    assert.equal(check.timestampingCertificate, true);
    assert.equal(check.imprintAlgorithm, 'sha256');
    assert.equal(checkTimestampToken(ts.tokenDer, { data: CONTENT }).imprintMatches, true);
  });

  test('the request: SHA-256 imprint, 64-bit nonce, certReq', async () => {
    let seen: Uint8Array | undefined;
    const spy: HttpTransport = async (req) => {
      assert.equal(req.contentType, 'application/timestamp-query');
      seen = req.body;
      return transport(req);
    };
    await requestTimestamp(spy, tsa.url, DIGEST);
    const r = opensslSync(['ts', '-query', '-in', tmp.file('q.tsq', seen!), '-text']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.stdout, /Hash Algorithm: sha256/);
    assert.match(r.stdout, /Certificate required: yes/);
    const nonce = /Nonce: (0x[0-9A-F]+)/i.exec(r.stdout)?.[1];
    assert.ok(nonce && BigInt(nonce) > 0n && BigInt(nonce) < 2n ** 64n, `nonce ${nonce}`);
    const req = pkijs.TimeStampReq.fromBER(new Uint8Array(seen!).buffer);
    assert.equal(hex(new Uint8Array(req.messageImprint.hashedMessage.valueBlock.valueHexView)), hex(DIGEST));
  });

  const failures: [TsaFailMode, RegExp][] = [
    ['down', /request failed/],
    ['http500', /HTTP 500/],
    ['rejection', /refused \(status 2: TSA is resting\)/],
    ['garbage', /not a TimeStampResp/],
    ['wrong-imprint', /imprint does not match/],
    ['wrong-nonce', /nonce does not match/],
    ['bad-signature', /does not verify/],
  ];
  for (const [mode, why] of failures) {
    test(`TSA ${mode} → tsa_unavailable, no time invented`, async () => {
      await tsa.setFailing(mode);
      const e = await rejectsWithCode(requestTimestamp(transport, tsa.url, DIGEST), 'tsa_unavailable');
      assert.match(e.message, why);
      const cms = await signed('EC');
      await rejectsWithCode(addSignatureTimestamp(cms, transport, tsa.url), 'tsa_unavailable');
    });
  }
});

describe('addSignatureTimestamp (B-T)', () => {
  for (const kind of ['RSA', 'EC'] as const) {
    test(`${kind}: the token covers the signature value; openssl cms and ts both verify`, async () => {
      const cms = await signed(kind);
      const bt = await addSignatureTimestamp(cms, transport, tsa.url);
      // The CMS still verifies as a whole.
      const path = tmp.file(`bt-${kind}.p7s`, bt);
      const cmsOk = opensslSync([
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        path,
        '-content',
        tmp.file('content.bin', CONTENT),
        '-CAfile',
        pki.rootPath,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ]);
      assert.equal(cmsOk.status, 0, cmsOk.out);
      // openssl sees the unsigned attribute.
      const printed = opensslSync(['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path]);
      assert.match(
        printed.stdout,
        /unsignedAttrs:\s+object: id-smime-aa-timeStampToken \(1\.2\.840\.113549\.1\.9\.16\.2\.14\)/,
      );

      const signatureValue = signatureValueOf(bt);
      assert.deepEqual(signatureValue, signatureValueOf(cms), 'the signature value is unchanged');
      const info = inspectCms(bt, { content: CONTENT });
      assert.deepEqual(info.problems, []);
      assert.equal(info.signatureValid, true);
      assert.equal(info.timestamps.length, 1);
      const token = info.timestamp!;
      assert.equal(token.signatureValid, true);
      assert.equal(token.imprintMatches, true);
      assert.equal(hex(token.imprint), createHash('sha256').update(signatureValue).digest('hex'));
      assert.deepEqual(token.tsaCertificate, pki.tsa.der);
      const v = tsVerify(token.tokenDer, { data: signatureValue });
      assert.equal(v.status, 0, v.out);
      assert.match(v.out, /Verification: OK/);
      // Everything but the new attribute is byte-identical.
      const a = signedDataParts(cms);
      const b = signedDataParts(bt);
      assert.deepEqual(b.before, a.before, 'version, digest algorithms, content info, certificates');
      assert.deepEqual(b.signerInfo.slice(0, -1), a.signerInfo, 'SignerInfo fields up to the signature');
      assert.equal(b.signerInfo.at(-1)!.slice(0, 2), 'a1', 'then the unsigned attributes');
    });
  }

  test('a tampered token inside the CMS is reported by inspectCms', async () => {
    const bt = await addSignatureTimestamp(await signed('RSA'), transport, tsa.url);
    const bad = Uint8Array.from(bt);
    bad[bad.length - 5]! ^= 0x01; // the TSA signature is the last thing in the CMS
    const info = inspectCms(bad, { content: CONTENT });
    assert.equal(info.signatureValid, true);
    assert.equal(info.timestamp?.signatureValid, false);
    assert.ok(info.problems.some((p) => /signature timestamp/.test(p)));
  });

  test('a token over something else does not match the signature value', async () => {
    const cms = await signed('EC');
    const unrelated = await requestTimestamp(transport, tsa.url, DIGEST);
    const forged = addUnsignedAttribute(cms, OID.signatureTimeStampToken, unrelated.tokenDer);
    const info = inspectCms(forged);
    assert.equal(info.timestamp?.signatureValid, true);
    assert.equal(info.timestamp?.imprintMatches, false);
    assert.ok(info.problems.some((p) => /imprint/.test(p)));
  });
});

describe('document timestamp (ETSI.RFC3161)', () => {
  test('the token itself is the CMS; openssl ts -verify over the data', async () => {
    const ts = await requestDocumentTimestamp(transport, tsa.url, DIGEST);
    const v = tsVerify(ts.tokenDer, { data: CONTENT });
    assert.equal(v.status, 0, v.out);
    const info = inspectCms(ts.tokenDer);
    assert.deepEqual(info.problems, []);
    assert.equal(info.messageDigestMatches, true, 'over the encapsulated TSTInfo');
    assert.equal(info.eContentType, '1.2.840.113549.1.9.16.1.4');
    assert.equal(info.signatureValid, true);
    assert.equal(checkTimestampToken(ts.tokenDer, { data: CONTENT }).imprintMatches, true);
  });
});
