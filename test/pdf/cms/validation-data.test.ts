import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  certInfo,
  checkCrl,
  checkOcspResponse,
  gatherValidationData,
  type CertificateNote,
  type ValidationData,
} from '../../../pdf/cms/index.js';
import type { HttpTransport } from '../../../pdf/ports.js';
import { loopbackTransport } from '../../support/tsa.js';
import { createTestPki, type TestCert, type TestPki } from '../../support/served-pki.js';
import { opensslSync, rejectsWithCode, scratch, type Scratch } from './helpers.js';

let pki: TestPki;
let tmp: Scratch;

before(async () => {
  pki = await createTestPki();
  tmp = scratch();
});
after(async () => {
  await pki.close();
  tmp.remove();
});
afterEach(async () => {
  await pki.intServer.setFailing('none');
  await pki.rootServer.setFailing('none');
});

function noteOf(data: ValidationData, who: TestCert): CertificateNote {
  const serial = certInfo(who.der).serialHex;
  const note = data.notes.find((n) => n.serialNumber === serial);
  assert.ok(note, `a note for ${who.name}`);
  return note;
}

/** openssl's own reading of an OCSP response we kept: signature, responder authorisation, status. */
function opensslOcsp(response: Uint8Array, cert: TestCert, issuer: TestCert): string {
  const r = opensslSync([
    'ocsp',
    '-respin',
    tmp.file(`resp-${Math.random()}.der`, response),
    '-issuer',
    issuer.certPath,
    '-cert',
    cert.certPath,
    '-CAfile',
    pki.rootPath,
    '-verify_other',
    pki.intermediate.certPath,
    '-no_nonce',
  ]);
  assert.equal(r.status, 0, r.out);
  return r.out;
}

function logged(log: string[]): HttpTransport {
  return loopbackTransport({ log });
}

describe('gatherValidationData', () => {
  test('signer and TSA chains: issuers via caIssuers, OCSP for the signer and the CA, CRL for the TSA', async () => {
    const log: string[] = [];
    const data = await gatherValidationData({
      chain: [pki.rsaSigner.der],
      tsaChain: [pki.tsa.der],
      transport: logged(log),
    });
    assert.ok(
      log.some((l) => l.endsWith('/intermediate.cer')) && log.some((l) => l.endsWith('/root.cer')),
      log.join('\n'),
    );

    const signer = noteOf(data, pki.rsaSigner);
    assert.equal(signer.status, 'good');
    assert.equal(signer.source, 'ocsp');
    assert.equal(signer.url, pki.intServer.url);
    assert.deepEqual(signer.roles, ['signer']);
    const ca = noteOf(data, pki.intermediate);
    assert.equal(ca.status, 'good');
    assert.equal(ca.source, 'ocsp');
    assert.equal(ca.issuerFetchedFrom, pki.rootServer.baseUrl + '/root.cer');
    assert.deepEqual(ca.roles.sort(), ['signer', 'tsa']);
    const root = noteOf(data, pki.root);
    assert.equal(root.root, true);
    assert.equal(root.status, 'not-checked');
    const tsa = noteOf(data, pki.tsa);
    assert.equal(tsa.status, 'good');
    assert.equal(tsa.source, 'crl');
    assert.equal(tsa.url, pki.intServer.crlUrl);
    const responder = noteOf(data, pki.ocspResponder);
    assert.equal(responder.status, 'not-checked', 'id-pkix-ocsp-nocheck');

    const certs = new Set(data.certs.map((c) => Buffer.from(c).toString('hex')));
    for (const c of [pki.rsaSigner, pki.intermediate, pki.root, pki.tsa, pki.ocspResponder]) {
      assert.ok(certs.has(Buffer.from(c.der).toString('hex')), c.name);
    }
    assert.equal(data.certs.length, 5);
    assert.equal(data.ocsps.length, 2);
    assert.equal(data.crls.length, 1);

    // openssl agrees with what we kept.
    const [leafOcsp, caOcsp] = [
      data.ocsps.find((o) => checkOcspResponse(o, certInfo(pki.rsaSigner.der), certInfo(pki.intermediate.der)).valid)!,
      data.ocsps.find((o) => checkOcspResponse(o, certInfo(pki.intermediate.der), certInfo(pki.root.der)).valid)!,
    ];
    assert.match(opensslOcsp(leafOcsp, pki.rsaSigner, pki.intermediate), /: good[\s\S]*Response verify OK/);
    assert.match(opensslOcsp(caOcsp, pki.intermediate, pki.root), /: good[\s\S]*Response verify OK/);
  });

  test('a revoked certificate is reported as revoked (OCSP), and openssl agrees', async () => {
    const data = await gatherValidationData({
      chain: [pki.revokedSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
    });
    const note = noteOf(data, pki.revokedSigner);
    assert.equal(note.status, 'revoked');
    assert.equal(note.source, 'ocsp');
    assert.equal(note.revocationReason, 'keyCompromise');
    assert.ok(note.revocationTime && note.revocationTime.getTime() < Date.now());
    const ocsp = data.ocsps.find(
      (o) => checkOcspResponse(o, certInfo(pki.revokedSigner.der), certInfo(pki.intermediate.der)).valid,
    )!;
    assert.match(
      opensslOcsp(ocsp, pki.revokedSigner, pki.intermediate),
      /: revoked[\s\S]*Reason: keyCompromise[\s\S]*Response verify OK/,
    );
  });

  test('CRL fallback when OCSP fails (HTTP 500, tryLater, tampered answers); openssl verify -crl_check agrees', async () => {
    for (const mode of ['http500', 'tryLater', 'bad-signature', 'garbage'] as const) {
      await pki.intServer.setFailing(mode);
      const data = await gatherValidationData({
        chain: [pki.ecSigner.der, pki.intermediate.der, pki.root.der],
        transport: loopbackTransport(),
      });
      const note = noteOf(data, pki.ecSigner);
      assert.equal(note.status, 'good', mode);
      assert.equal(note.source, 'crl', mode);
      assert.ok(
        note.problems.some((p) => p.startsWith(`OCSP ${pki.intServer.url}`)),
        `${mode}: ${note.problems.join('; ')}`,
      );
      assert.equal(data.crls.length, 1);
    }
    const data = await gatherValidationData({
      chain: [pki.revokedSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
      preferCrl: true,
    });
    const note = noteOf(data, pki.revokedSigner);
    assert.equal(note.status, 'revoked');
    assert.equal(note.source, 'crl');
    assert.equal(note.revocationReason, 'keyCompromise');
    assert.equal(noteOf(data, pki.intermediate).source, 'crl');
    // openssl on the same CRLs: the revoked signer fails, the good one passes.
    const crlPem = data.crls
      .map((c) => `-----BEGIN X509 CRL-----\n${Buffer.from(c).toString('base64')}\n-----END X509 CRL-----\n`)
      .join('');
    const crlFile = tmp.file('crls.pem', crlPem);
    const verify = (who: TestCert) =>
      opensslSync([
        'verify',
        '-crl_check_all',
        '-CRLfile',
        crlFile,
        '-CAfile',
        pki.rootPath,
        '-untrusted',
        pki.intermediate.certPath,
        who.certPath,
      ]);
    assert.match(verify(pki.revokedSigner).out, /certificate revoked/);
    assert.match(verify(pki.ecSigner).out, /: OK/);
  });

  test('OCSP "unknown" falls back to the CRL, the OCSP problem is kept in the note', async () => {
    const data = await gatherValidationData({
      chain: [pki.unknownSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
    });
    const note = noteOf(data, pki.unknownSigner);
    assert.equal(note.source, 'crl');
    assert.equal(note.status, 'good');
    assert.ok(
      note.problems.some((p) => /does not know the certificate/.test(p)),
      note.problems.join('; '),
    );
    const leaf = certInfo(pki.unknownSigner.der);
    const issuer = certInfo(pki.intermediate.der);
    assert.ok(
      data.ocsps.every((o) => checkOcspResponse(o, leaf, issuer).status === null),
      'the "unknown" answer is not kept when the CRL answered',
    );
  });

  test('nothing reachable → validation_data_unavailable; with requireAll false, "unavailable" notes', async () => {
    await pki.intServer.setFailing('down');
    const e = await rejectsWithCode(
      gatherValidationData({ chain: [pki.ecSigner.der, pki.intermediate.der], transport: loopbackTransport() }),
      'validation_data_unavailable',
    );
    assert.match(e.message, /Vikram Iyer/);
    const data = await gatherValidationData({
      chain: [pki.ecSigner.der, pki.intermediate.der],
      transport: loopbackTransport(),
      requireAll: false,
    });
    const note = noteOf(data, pki.ecSigner);
    assert.equal(note.status, 'unavailable');
    assert.ok(
      note.problems.some((p) => p.startsWith('OCSP')) && note.problems.some((p) => p.startsWith('CRL')),
      note.problems.join('; '),
    );
    assert.equal(noteOf(data, pki.intermediate).status, 'good', 'the root services still answer');
  });

  test('a missing issuer that cannot be fetched leaves the chain incomplete', async () => {
    await pki.intServer.setFailing('down');
    const data = await gatherValidationData({
      chain: [pki.rsaSigner.der],
      transport: loopbackTransport(),
      requireAll: false,
    });
    const note = noteOf(data, pki.rsaSigner);
    assert.equal(note.status, 'unavailable');
    assert.ok(note.problems.some((p) => /chain is incomplete/.test(p)));
  });

  test('caller-supplied data is used instead of fetching', async () => {
    const first = await gatherValidationData({
      chain: [pki.rsaSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
    });
    const offline: HttpTransport = async (req) => {
      throw new Error(`offline: ${req.url}`);
    };
    const again = await gatherValidationData({
      chain: [pki.rsaSigner.der],
      extra: { certs: [pki.intermediate.der, pki.root.der], ocsps: first.ocsps, crls: first.crls },
      transport: offline,
    });
    assert.equal(noteOf(again, pki.rsaSigner).source, 'supplied-ocsp');
    assert.equal(noteOf(again, pki.intermediate).source, 'supplied-ocsp');
    assert.deepEqual(again.ocsps.length, 2);
  });
});

describe('checkOcspResponse / checkCrl', () => {
  test('responses for another certificate, or checked far in the future, are not valid', async () => {
    const data = await gatherValidationData({
      chain: [pki.rsaSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
      preferCrl: false,
    });
    const leaf = certInfo(pki.rsaSigner.der);
    const issuer = certInfo(pki.intermediate.der);
    const ocsp = data.ocsps.find((o) => checkOcspResponse(o, leaf, issuer).valid)!;
    const other = checkOcspResponse(ocsp, certInfo(pki.ecSigner.der), issuer);
    assert.equal(other.valid, false);
    assert.ok(other.problems.includes('the response does not cover the certificate'));
    const later = checkOcspResponse(ocsp, leaf, issuer, new Date(Date.now() + 3 * 86400_000));
    assert.equal(later.valid, false);
    assert.ok(later.problems.some((p) => /expired/.test(p)));
    assert.equal(checkOcspResponse(new Uint8Array([1, 2, 3]), leaf, issuer).valid, false);

    const crlData = await gatherValidationData({
      chain: [pki.rsaSigner.der, pki.intermediate.der, pki.root.der],
      transport: loopbackTransport(),
      preferCrl: true,
    });
    const crl = crlData.crls.find((c) => checkCrl(c, leaf, issuer).valid)!;
    assert.equal(checkCrl(crl, leaf, issuer).status, 'good');
    // The same CRL is not the root's: wrong issuer, signature does not verify.
    const wrongIssuer = checkCrl(crl, issuer, certInfo(pki.root.der));
    assert.equal(wrongIssuer.valid, false);
    assert.equal(checkCrl(crl, leaf, issuer, new Date(Date.now() + 3 * 86400_000)).valid, false);
  });
});
