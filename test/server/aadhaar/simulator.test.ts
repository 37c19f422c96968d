import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildCertificatePath, judgeCertificatePath } from '../../../pdf/cms/chain.js';
import { inspectCms } from '../../../pdf/cms/inspect.js';
import {
  formatEsignTimestamp,
  signEsignRequest,
  signEsignStatusRequest,
  verifyEsignResponse,
  type EsignRequest,
} from '../../../server/aadhaar/messages.js';
import { CCA_EKYC_OTP_POLICY } from '../../../server/aadhaar/simulator/ca.js';
import { signEnveloped } from '../../../server/aadhaar/xml.js';
import {
  AUTH_ERRORS,
  MISMATCHED_NAME,
  REQUEST_ERRORS,
  startTestEsp,
  TEST_AADHAAR,
  type TestEsp,
} from '../../support/esp.js';

let esp: TestEsp;
let seq = 0;
const contents = [Buffer.from('first document byte range'), Buffer.from('second document byte range')];

function request(overrides: Partial<EsignRequest> = {}): EsignRequest {
  seq += 1;
  return {
    ver: '2.1',
    sc: 'Y',
    ts: formatEsignTimestamp(new Date()),
    txn: `t-${process.pid}-${seq}`,
    ekycId: '',
    ekycIdType: 'A',
    aspId: esp.aspId,
    authMode: '1',
    responseSigType: 'pkcs7',
    responseUrl: 'http://127.0.0.1:9/esign/response',
    docs: contents.map((c, i) => ({
      id: String(i + 1),
      hashAlgorithm: 'SHA256' as const,
      docInfo: `Doc ${i + 1}`,
      hash: createHash('sha256').update(c).digest('hex'),
    })),
    ...overrides,
  };
}

async function form(req: EsignRequest, signer = esp.aspSigner): Promise<{ eSignRequest: string; aspTxnID: string }> {
  return { eSignRequest: await signEsignRequest(req, signer), aspTxnID: req.txn };
}

describe('ESP simulator', () => {
  before(async () => {
    esp = await startTestEsp();
  });
  after(() => esp.close());

  test('signs every InputHash as a detached CMS that openssl verifies against the simulated CCA root', async () => {
    const req = request();
    const page = await esp.complete(await form(req), { name: 'Asha Rao' });
    assert.equal(page.responseUrl, req.responseUrl);
    assert.equal(page.fields!.espTxnID, req.txn);
    const res = verifyEsignResponse(page.fields!.eSignResponse, esp.espCertPem);
    assert.equal(res.status, '1');
    assert.equal(res.errCode, 'NA');
    assert.equal(res.txn, req.txn);
    assert.deepEqual(
      res.signatures.map((s) => s.id),
      ['1', '2'],
    );

    const cert = new X509Certificate(Buffer.from(res.userCertificate, 'base64'));
    assert.match(cert.subject, /CN=Asha Rao/);
    assert.match(cert.subject, /C=IN/);
    assert.ok(!cert.subject.includes(TEST_AADHAAR.success), 'the Aadhaar number is never in the certificate');
    assert.ok(cert.checkIssued(new X509Certificate(esp.espCaPem)));
    const hours = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 3600_000;
    assert.ok(hours > 1 && hours < 1.1, `one-hour certificate (${hours} h)`);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: cert.toString() }).toString();
    assert.match(text, new RegExp(CCA_EKYC_OTP_POLICY.replace(/\./g, '\\.')));
    assert.match(text, /Digital Signature, Non Repudiation/);

    for (const [i, s] of res.signatures.entries()) {
      const cms = Buffer.from(s.value, 'base64');
      const info = inspectCms(cms, { content: contents[i]! });
      assert.equal(Buffer.from(info.messageDigest!).toString('hex'), req.docs[i]!.hash);
      assert.deepEqual(
        [
          info.messageDigestMatches,
          info.signatureValid,
          info.hasSigningTime,
          info.signingCertificate?.version,
          info.signingCertificate?.matchesSigner,
        ],
        [true, true, false, 2, true],
      );
      assert.deepEqual(info.problems, []);
      assert.equal(info.certificates.length, 3, 'signer, ESP CA and root');
      const path = buildCertificatePath(info.signerCertificate!, info.certificates, [esp.pki.root.certDer]);
      assert.equal(path.anchored, true);
      assert.deepEqual(
        judgeCertificatePath(path, new Date()).problems,
        [],
        'our own path check accepts root → ESP CA → signer',
      );
      const sig = join(esp.dir, `sig${i}.der`);
      const content = join(esp.dir, `content${i}.bin`);
      writeFileSync(sig, cms);
      writeFileSync(content, contents[i]!);
      const out = execFileSync(
        'openssl',
        [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          sig,
          '-content',
          content,
          '-CAfile',
          esp.trustAnchorPath,
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { stdio: 'pipe' },
      );
      assert.equal(out.toString(), '');
    }
  });

  test('each scripted Aadhaar number fails with its code, signed by the ESP', async () => {
    const cases: [string, string][] = [
      [TEST_AADHAAR.wrongOtp, AUTH_ERRORS.wrongOtp.errCode],
      [TEST_AADHAAR.otpExpired, AUTH_ERRORS.otpExpired.errCode],
      [TEST_AADHAAR.attemptsExceeded, AUTH_ERRORS.attemptsExceeded.errCode],
      [TEST_AADHAAR.aadhaarLocked, AUTH_ERRORS.aadhaarLocked.errCode],
      [TEST_AADHAAR.serviceDown, AUTH_ERRORS.serviceDown.errCode],
      ['12345', AUTH_ERRORS.invalidAadhaar.errCode],
    ];
    for (const [aadhaar, errCode] of cases) {
      const page = await esp.complete(await form(request()), { aadhaar });
      const res = verifyEsignResponse(page.fields!.eSignResponse, esp.espCertPem);
      assert.deepEqual(
        [res.status, res.errCode, res.signatures.length, res.userCertificate],
        ['0', errCode, 0, ''],
        aadhaar,
      );
    }
    const wrong = verifyEsignResponse(
      (await esp.complete(await form(request()), { otp: '000000' })).fields!.eSignResponse,
      esp.espCertPem,
    );
    assert.equal(wrong.errCode, '400');
    const cancelled = verifyEsignResponse(
      (await esp.complete(await form(request()), { cancel: true })).fields!.eSignResponse,
      esp.espCertPem,
    );
    assert.equal(cancelled.errCode, AUTH_ERRORS.cancelled.errCode);
  });

  test('name mismatch: signs, but e-KYC names someone else (the ASP must notice)', async () => {
    const page = await esp.complete(await form(request()), { aadhaar: TEST_AADHAAR.nameMismatch, name: 'Asha Rao' });
    const res = verifyEsignResponse(page.fields!.eSignResponse, esp.espCertPem);
    assert.equal(res.status, '1');
    assert.match(
      new X509Certificate(Buffer.from(res.userCertificate, 'base64')).subject,
      new RegExp(`CN=${MISMATCHED_NAME}`),
    );
  });

  test('signResponse: tampered content under a valid ESP signature, for tests of the ASP', async () => {
    const page = await esp.complete(await form(request()));
    const res = verifyEsignResponse(page.fields!.eSignResponse, esp.espCertPem);
    const forged = await esp.signResponse({ ...res, txn: 'someone-else' });
    assert.equal(verifyEsignResponse(forged, esp.espCertPem).txn, 'someone-else');
  });

  test('requests that cannot be trusted get an error page, never a post back', async () => {
    const otherKey = (await startTestEsp({ aspId: esp.aspId })) as TestEsp;
    try {
      const forged = await esp.complete(await form(request(), otherKey.aspSigner));
      assert.equal(forged.status, 400);
      assert.equal(forged.fields, undefined);
      assert.match(forged.html, new RegExp(REQUEST_ERRORS.badSignature.errCode));
    } finally {
      await otherKey.close();
    }
    const unknown = await esp.complete(await form(request({ aspId: 'NOBODY' })));
    assert.match(unknown.html, new RegExp(REQUEST_ERRORS.unknownAsp.errCode));
    const malformed = await esp.complete({ eSignRequest: '<!DOCTYPE x><Esign/>', aspTxnID: 'x' });
    assert.equal(malformed.status, 400);
    assert.match(malformed.html, new RegExp(REQUEST_ERRORS.malformed.errCode));
    const noDocs = await signEnveloped(
      `<Esign ver="2.1" sc="Y" ts="${formatEsignTimestamp(new Date())}" txn="no-docs" ekycIdType="A" aspId="${esp.aspId}" AuthMode="1" responseSigType="pkcs7" responseUrl="http://127.0.0.1:9/r"/>`,
      esp.aspSigner,
    );
    const shapeless = await esp.complete({ eSignRequest: noDocs, aspTxnID: 'no-docs' });
    assert.equal(shapeless.fields, undefined);
    assert.match(shapeless.html, new RegExp(`${REQUEST_ERRORS.malformed.errCode}[\\s\\S]*no Docs`));
  });

  test('signed requests with bad attributes are answered at the responseUrl', async () => {
    const codeOf = async (req: EsignRequest, aspTxnID = req.txn): Promise<string> => {
      const page = await esp.complete({ eSignRequest: await signEsignRequest(req, esp.aspSigner), aspTxnID });
      return verifyEsignResponse(page.fields!.eSignResponse, esp.espCertPem).errCode;
    };
    assert.equal(await codeOf(request({ authMode: '2' })), REQUEST_ERRORS.badAttribute.errCode);
    assert.equal(await codeOf(request({ ver: '2.0' })), REQUEST_ERRORS.badAttribute.errCode);
    assert.equal(await codeOf(request({ responseSigType: 'raw' })), REQUEST_ERRORS.badAttribute.errCode);
    assert.equal(await codeOf(request(), 'another'), REQUEST_ERRORS.badAttribute.errCode);
    assert.equal(
      await codeOf(request({ ts: formatEsignTimestamp(new Date(Date.now() - 3600_000)) })),
      REQUEST_ERRORS.staleTimestamp.errCode,
    );
    const once = request();
    await esp.complete(await form(once));
    assert.equal(await codeOf(once), REQUEST_ERRORS.repeatedTxn.errCode);
  });

  test('the OTP page asks for consent again when it was not given; pages run under a strict CSP', async () => {
    const page = await esp.complete(await form(request()), { consent: false });
    assert.equal(page.fields, undefined);
    assert.match(page.html, /Give your consent/);
    const res = await fetch(esp.espUrl, { method: 'POST', body: new URLSearchParams(await form(request())) });
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.doesNotMatch(await res.text(), /<script>/);
  });

  test('EsignStatus: pending, then the response as posted; unknown txn; a forged query', async () => {
    const req = request();
    const query = async (txn: string, signer = esp.aspSigner): Promise<string> => {
      const xml = await signEsignStatusRequest(
        { ver: '2.1', ts: formatEsignTimestamp(new Date()), txn, aspId: esp.aspId },
        signer,
      );
      const res = await fetch(esp.statusUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: xml,
      });
      assert.match(res.headers.get('content-type') ?? '', /application\/xml/);
      return res.text();
    };
    const first = await fetch(esp.espUrl, { method: 'POST', body: new URLSearchParams(await form(req)) });
    const session = /name="session" value="([0-9a-f]+)"/.exec(await first.text())![1]!;
    assert.equal(verifyEsignResponse(await query(req.txn), esp.espCertPem).status, '2');
    const done = await fetch(`${esp.url}/esign/2.1/authenticate`, {
      method: 'POST',
      body: new URLSearchParams({
        session,
        aadhaar: TEST_AADHAAR.success,
        otp: '123456',
        name: 'Asha Rao',
        consent: 'Y',
        action: 'sign',
      }),
    });
    const posted = /name="eSignResponse" value="([^"]*)"/
      .exec(await done.text())![1]!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    assert.equal(await query(req.txn), posted);
    assert.equal(
      verifyEsignResponse(await query('no-such-txn'), esp.espCertPem).errCode,
      REQUEST_ERRORS.unknownTxn.errCode,
    );
    const other = await startTestEsp({ aspId: esp.aspId });
    try {
      assert.equal(
        verifyEsignResponse(await query(req.txn, other.aspSigner), esp.espCertPem).errCode,
        REQUEST_ERRORS.badSignature.errCode,
      );
    } finally {
      await other.close();
    }
    const again = await fetch(`${esp.url}/esign/2.1/authenticate`, {
      method: 'POST',
      body: new URLSearchParams({ session, aadhaar: TEST_AADHAAR.success, otp: '123456', consent: 'Y' }),
    });
    assert.equal(again.status, 410, 'a session signs once');
  });
});
