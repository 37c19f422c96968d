import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import {
  buildEsignRequest,
  formatEsignTimestamp,
  parseEsignRequest,
  parseEsignTimestamp,
  signEsignRequest,
  signEsignResponse,
  signEsignStatusRequest,
  verifyEsignRequest,
  verifyEsignResponse,
  verifyEsignStatusRequest,
  type EsignRequest,
  type EsignResponse,
} from '../../../server/aadhaar/messages.js';
import { parseXml, type XmlSigner } from '../../../server/aadhaar/xml.js';
import { createTestPki, type SoftwareCredential } from '../../support/pki.js';

const pki = createTestPki();
after(() => pki.cleanup());
const asp = pki.issueSoftwareSigner({ commonName: 'ASP request signing' });
const esp = pki.issueSoftwareSigner({ commonName: 'ESP response signing' });

function signerOf(cred: SoftwareCredential): XmlSigner {
  const key = createPrivateKey(cred.keyPem);
  return { certificate: cred.certDer, keyType: 'RSA', sign: async (data) => new Uint8Array(sign('sha256', data, key)) };
}

const REQUEST: EsignRequest = {
  ver: '2.1',
  sc: 'Y',
  ts: '2026-11-25T21:10:00',
  txn: 'mohar-0f3a',
  ekycId: '',
  ekycIdType: 'A',
  aspId: 'ASP-TEST',
  authMode: '1',
  responseSigType: 'pkcs7',
  responseUrl: 'https://mohar.example/esign/response?x=1&y=2',
  docs: [
    { id: '1', hashAlgorithm: 'SHA256', docInfo: 'Lease "A" <2026> & annex', hash: 'ab'.repeat(32) },
    { id: '2', hashAlgorithm: 'SHA256', docInfo: 'Second', hash: 'cd'.repeat(32) },
  ],
};

const RESPONSE: EsignResponse = {
  ver: '2.1',
  status: '1',
  ts: '2026-11-25T21:11:00',
  txn: 'mohar-0f3a',
  resCode: 'SIM-1',
  errCode: 'NA',
  errMsg: 'NA',
  userCertificate: 'MIIB' + 'A'.repeat(100),
  signatures: [
    { id: '1', sigHashAlgorithm: 'SHA256', error: '', value: 'MIAG' + 'B'.repeat(60) },
    { id: '2', sigHashAlgorithm: 'SHA256', error: '', value: 'MIAG' + 'C'.repeat(60) },
  ],
};

function refuses(fn: () => unknown, reason: RegExp): void {
  assert.throws(fn, (e: unknown) => isMoharError(e, 'esign_xml_invalid') && reason.test(e.message), String(reason));
}

describe('eSign 2.1 messages', () => {
  test('Esign: signed by the ASP, verified with its certificate, read back exactly', async () => {
    const xml = await signEsignRequest(REQUEST, signerOf(asp));
    assert.match(
      xml,
      /^<Esign ver="2.1" sc="Y" ts="2026-11-25T21:10:00" txn="mohar-0f3a" ekycId="" ekycIdType="A" aspId="ASP-TEST" AuthMode="1" responseSigType="pkcs7" responseUrl="https:\/\/mohar.example\/esign\/response\?x=1&amp;y=2"><Docs><InputHash id="1" hashAlgorithm="SHA256"/,
    );
    assert.deepEqual(verifyEsignRequest(xml, asp.certPem), REQUEST);
    refuses(() => verifyEsignRequest(xml, esp.certPem), /does not verify/);
  });

  test('EsignResp: success and failure round trips', async () => {
    const xml = await signEsignResponse(RESPONSE, signerOf(esp));
    assert.deepEqual(verifyEsignResponse(xml, esp.certPem), RESPONSE);
    const failed: EsignResponse = {
      ...RESPONSE,
      status: '0',
      errCode: '400',
      errMsg: 'Invalid OTP value',
      userCertificate: '',
      signatures: [],
    };
    assert.deepEqual(verifyEsignResponse(await signEsignResponse(failed, signerOf(esp)), esp.certPem), failed);
    refuses(() => verifyEsignResponse(xml, asp.certPem), /does not verify/);
  });

  test('base64 wrapped over lines by an ESP is read whole', async () => {
    const wrapped = { ...RESPONSE, signatures: [{ ...RESPONSE.signatures[0]!, value: 'MIAG\nBBBB\r\nCCCC' }] };
    const read = verifyEsignResponse(await signEsignResponse(wrapped, signerOf(esp)), esp.certPem);
    assert.equal(read.signatures[0]!.value, 'MIAGBBBBCCCC');
  });

  test('EsignStatus round trip', async () => {
    const query = { ver: '2.1', ts: '2026-11-25T21:12:00', txn: 'mohar-0f3a', aspId: 'ASP-TEST' };
    assert.deepEqual(verifyEsignStatusRequest(await signEsignStatusRequest(query, signerOf(asp)), asp.certPem), query);
  });

  test('shape problems are refused with a reason', () => {
    const read = (xml: string): EsignRequest => parseEsignRequest(parseXml(xml).documentElement!);
    const good = buildEsignRequest(REQUEST);
    assert.deepEqual(read(good), REQUEST);
    refuses(() => read(good.replace(' aspId="ASP-TEST"', '')), /lacks the aspId attribute/);
    refuses(() => read(good.replace('ab'.repeat(32), 'zz')), /not a hex SHA-256/);
    refuses(() => read(good.replace('id="2"', 'id="1"')), /ids repeat/);
    refuses(() => read(good.replace('hashAlgorithm="SHA256"', 'hashAlgorithm="SHA1"')), /SHA256 only/);
    refuses(() => read(good.replace(/<Docs>.*<\/Docs>/, '<Docs></Docs>')), /no InputHash/);
    refuses(() => read(good.replace(/<Docs>.*<\/Docs>/, '')), /no Docs/);
  });

  test('timestamps are IST without a zone; offsets are honoured when present', () => {
    const at = new Date('2026-11-25T15:40:00.000Z');
    assert.equal(formatEsignTimestamp(at), '2026-11-25T21:10:00');
    assert.equal(parseEsignTimestamp('2026-11-25T21:10:00')!.toISOString(), at.toISOString());
    assert.equal(parseEsignTimestamp('2026-11-25T15:40:00Z')!.toISOString(), at.toISOString());
    assert.equal(parseEsignTimestamp('2026-11-25T21:10:00.123+05:30')!.toISOString(), '2026-11-25T15:40:00.123Z');
    assert.equal(parseEsignTimestamp('yesterday'), undefined);
  });
});
