/**
 * Pkcs11Module.beginSession on SoftHSM2: one C_Login for several signatures (RSA and EC), each verified against
 * its certificate; end() logs out (private keys hidden again, sign refused); a wrong PIN leaves nothing open;
 * reinitialize() (the watcher's rescan) does not end a held session.
 */
import assert from 'node:assert/strict';
import { constants, verify, X509Certificate } from 'node:crypto';
import { after, before, test } from 'node:test';
import { isMoharError } from '../../common/errors.js';
import { Pkcs11Module } from '../../native/index.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';

let hsm: SoftHsm;
let module: Pkcs11Module;

before(async () => {
  hsm = createSoftHsm({ tokenLabel: 'Session Token' });
  module = await Pkcs11Module.open(hsm.modulePath);
});
after(async () => {
  await module?.close();
  hsm?.cleanup();
});

function verifies(certDer: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  const key = new X509Certificate(certDer).publicKey;
  return key.asymmetricKeyType === 'rsa'
    ? verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature)
    : verify('sha256', data, key, signature);
}

test('one login, several signatures, then logout', async () => {
  const certificates = await module.listCertificates({ label: 'Session Token' });
  const session = await module.beginSession({ label: 'Session Token' }, hsm.pin);
  try {
    // A rescan in between must not end the session (C_Finalize would).
    await module.reinitialize();
    for (let round = 0; round < 3; round++) {
      for (const cert of certificates) {
        const data = Buffer.from(`document ${round} for ${cert.subject}`);
        const { signature } = await session.sign({ certFingerprint: cert.fingerprintSha256, data });
        assert.ok(verifies(cert.der, data, signature), `${cert.keyType} round ${round}`);
      }
    }
  } finally {
    await session.end();
  }
  await session.end(); // twice is harmless
  await assert.rejects(
    session.sign({ certFingerprint: certificates[0]!.fingerprintSha256, data: Buffer.from('late') }),
    /ended/,
  );
  // Logged out: the private keys are hidden again.
  const after = await module.listCertificates({ label: 'Session Token' });
  assert.ok(after.every((c) => c.privateKey?.evidence !== 'privateKey'));
});

test('a wrong PIN opens nothing', async () => {
  await assert.rejects(module.beginSession({ label: 'Session Token' }, 'wrong-pin'), (error: unknown) => {
    assert.ok(isMoharError(error));
    assert.equal(error.code, 'pin_incorrect');
    return true;
  });
  // The right PIN still works and the session is ours to end.
  const session = await module.beginSession({ label: 'Session Token' }, hsm.pin);
  await session.end();
});
