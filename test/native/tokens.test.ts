/**
 * Listing tokens and certificates on a real SoftHSM2 token (keys generated on the token, certificates
 * from the per-run test PKI), including certificates whose CKA_ID differs from their key's.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CCA_CLASS_2_POLICY } from '../support/pki.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { Pkcs11Module, type TokenCertificate } from '../../native/index.js';

describe('native: tokens and certificates (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let module: Pkcs11Module;

  before(async () => {
    hsm = createSoftHsm({
      tokenLabel: 'DSC Token',
      keys: [
        {
          id: '01',
          label: 'rsa-signer',
          type: 'rsa',
          commonName: 'Asha Rao',
          email: 'asha@example.com',
          policies: [CCA_CLASS_2_POLICY],
        },
        { id: '02', label: 'ec-signer', type: 'ec', commonName: 'Ravi Kumar', email: 'ravi@example.com' },
        // Certificate objects with other CKA_IDs than their keys: only the public key ties them together.
        { id: '03', label: 'rsa-other-id', type: 'rsa', commonName: 'Meera Iyer', certificateId: 'a3' },
        { id: '04', label: 'ec-other-id', type: 'ec', commonName: 'Kabir Singh', certificateId: 'b4' },
        // A key pair without a certificate is not offered.
        { id: '05', label: 'no-cert', type: 'ec', commonName: 'Nobody', certificateId: null },
        // An imported private key without a public key object (and an expired certificate): before login
        // only the certificate is visible.
        { id: '09', label: 'imported', type: 'rsa', commonName: 'Old Signer', expired: true },
      ],
    });
    module = await Pkcs11Module.open(hsm.modulePath);
  });

  after(async () => {
    await module?.close();
    hsm?.cleanup();
  });

  test('lists the token with its label, manufacturer, model, serial and flags', async () => {
    const tokens = await module.listTokens();
    const token = tokens.find((t) => t.label === 'DSC Token');
    assert.ok(token, `token listed: ${JSON.stringify(tokens)}`);
    assert.equal(token.serial, hsm.tokenSerial);
    assert.equal(token.manufacturer, 'SoftHSM project');
    assert.equal(token.model, 'SoftHSM v2');
    assert.equal(token.initialized, true);
    assert.equal(token.modulePath, hsm.modulePath);
    assert.match(token.slotId, /^\d+$/);
    assert.deepEqual(token.flags, {
      loginRequired: true,
      pinCountLow: false,
      pinFinalTry: false,
      pinLocked: false,
      pinToBeChanged: false,
    });
    // SoftHSM always keeps one blank token in a free slot: listed, but marked uninitialised.
    assert.ok(tokens.some((t) => !t.initialized && t.label === ''));
  });

  test('lists the certificates that have a key: subject, e-mail, class, key usage, key type', async () => {
    const certs = await module.listCertificates({ label: 'DSC Token' });
    const byId = new Map(certs.map((c) => [c.certId, c]));
    assert.deepEqual([...byId.keys()].sort(), ['01', '02', '09', 'a3', 'b4']);

    const rsa = byId.get('01')!;
    assert.equal(rsa.subject, 'emailAddress=asha@example.com,CN=Asha Rao,O=Mohar Test,C=IN');
    assert.equal(rsa.subjectCommonName, 'Asha Rao');
    assert.equal(rsa.email, 'asha@example.com');
    assert.deepEqual(rsa.emails, ['asha@example.com']);
    assert.equal(rsa.issuer, 'CN=Mohar Test Intermediate CA,O=Mohar Test,C=IN');
    assert.equal(rsa.issuerCommonName, 'Mohar Test Intermediate CA');
    assert.deepEqual(rsa.keyUsage, ['digitalSignature', 'nonRepudiation']);
    assert.deepEqual(rsa.policies, [CCA_CLASS_2_POLICY]);
    assert.deepEqual(rsa.ccaClass, { oid: CCA_CLASS_2_POLICY, name: 'Class 2', level: 2 });
    assert.equal(rsa.keyType, 'RSA');
    assert.equal(rsa.rsaBits, 2048);
    assert.equal(rsa.curve, null);
    assert.equal(rsa.label, 'rsa-signer');
    assert.equal(rsa.isCa, false);
    assert.equal(rsa.token.serial, hsm.tokenSerial);
    const key01 = hsm.keys.find((k) => k.id === '01')!;
    assert.deepEqual(Buffer.from(rsa.der), Buffer.from(key01.certificateDer));
    assert.equal(rsa.serialNumber, key01.certificate!.serialHex.replace(/^0+/, ''));
    assert.ok(rsa.notBefore.getTime() <= Date.now() && Date.now() < rsa.notAfter.getTime());
    assert.match(rsa.fingerprintSha256, /^[0-9a-f]{64}$/);

    const ec = byId.get('02')!;
    assert.equal(ec.keyType, 'EC');
    assert.equal(ec.curve, 'P-256');
    assert.equal(ec.rsaBits, null);
    assert.equal(ec.email, 'ravi@example.com');
    assert.equal(ec.ccaClass, null);
    assert.deepEqual(ec.policies, []);
  });

  test('matches keys by CKA_ID, and by modulus / EC point when the ids differ', async () => {
    // Without a PIN the private keys (CKA_PRIVATE) are hidden: the public key objects are the evidence.
    const publicOnly = new Map((await module.listCertificates({ label: 'DSC Token' })).map((c) => [c.certId, c]));
    assert.deepEqual(publicOnly.get('01')!.privateKey, {
      id: '01',
      label: 'rsa-signer',
      matchedBy: 'id',
      evidence: 'publicKey',
    });
    assert.deepEqual(publicOnly.get('a3')!.privateKey, {
      id: '03',
      label: 'rsa-other-id',
      matchedBy: 'publicKey',
      evidence: 'publicKey',
    });
    assert.deepEqual(publicOnly.get('b4')!.privateKey, {
      id: '04',
      label: 'ec-other-id',
      matchedBy: 'publicKey',
      evidence: 'publicKey',
    });

    // Only the certificate is visible for the imported key: offered, marked unverified.
    assert.deepEqual(publicOnly.get('09')!.privateKey, {
      id: '09',
      label: 'imported',
      matchedBy: 'id',
      evidence: 'unverified',
    });
    assert.ok(publicOnly.get('09')!.notAfter.getTime() < Date.now(), 'expired certificates are listed too');

    // With the PIN the private key objects themselves are matched (and the session logged out again).
    const loggedIn = new Map(
      (await module.listCertificates({ label: 'DSC Token' }, { pin: hsm.pin })).map((c) => [c.certId, c]),
    );
    assert.deepEqual(loggedIn.get('01')!.privateKey, {
      id: '01',
      label: 'rsa-signer',
      matchedBy: 'id',
      evidence: 'privateKey',
    });
    assert.deepEqual(loggedIn.get('02')!.privateKey, {
      id: '02',
      label: 'ec-signer',
      matchedBy: 'id',
      evidence: 'privateKey',
    });
    // RSA: the private key's CKA_MODULUS equals the certificate's modulus.
    assert.deepEqual(loggedIn.get('a3')!.privateKey, {
      id: '03',
      label: 'rsa-other-id',
      matchedBy: 'publicKey',
      evidence: 'privateKey',
    });
    // EC: the private key has no point; the public key object with the certificate's point leads to it.
    assert.deepEqual(loggedIn.get('b4')!.privateKey, {
      id: '04',
      label: 'ec-other-id',
      matchedBy: 'publicKey',
      evidence: 'privateKey',
    });
    assert.deepEqual(loggedIn.get('09')!.privateKey, {
      id: '09',
      label: 'imported',
      matchedBy: 'id',
      evidence: 'privateKey',
    });
    const tokenAfter = (await module.listTokens()).find((t) => t.label === 'DSC Token')!;
    assert.equal(tokenAfter.flags.pinCountLow, false);
  });

  test('listing with a wrong PIN is pin_incorrect', async () => {
    await assert.rejects(module.listCertificates({ label: 'DSC Token' }, { pin: '000000' }), { code: 'pin_incorrect' });
    // A successful login clears SoftHSM's count-low flag again.
    await module.listCertificates({ label: 'DSC Token' }, { pin: hsm.pin });
  });

  test('certificates without a key (the intermediate CA) only when asked for', async () => {
    const all = await module.listCertificates({ serial: hsm.tokenSerial }, { includeWithoutKey: true });
    const ca = all.find((c) => c.certId === 'ca01') as TokenCertificate;
    assert.ok(ca);
    assert.equal(ca.privateKey, null);
    assert.equal(ca.isCa, true);
    assert.deepEqual(ca.keyUsage, ['keyCertSign', 'cRLSign']);
    assert.deepEqual(Buffer.from(ca.der), Buffer.from(hsm.chainDer[0]!));
    assert.equal(all.length, 6);
  });

  test('an unknown token is token_not_present', async () => {
    await assert.rejects(module.listCertificates({ label: 'No Such Token' }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'token_not_present');
      assert.match(error.message, /No Such Token/);
      return true;
    });
    await assert.rejects(module.listCertificates({ serial: 'ffffffffffffffff' }), { code: 'token_not_present' });
  });
});
