/**
 * Signing on a real SoftHSM2 token: RSA (both mechanism paths), ECDSA P-256 and P-384, each signature
 * checked with node's crypto.verify against the certificate AND with `openssl dgst -verify`; the PIN
 * errors and flags as SoftHSM really reports them; unknown keys; expired certificates refused before any
 * login; the token signer adapter; the event loop during signing.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants, createHash, verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pkcs11js from 'pkcs11js';
import { CCA_CLASS_3_POLICY } from '../support/pki.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { Pkcs11Module, tokenSigner, type TokenInfo } from '../../native/index.js';
import { isMoharError } from '../../common/errors.js';

const DATA = Buffer.from('1\u0000 DER signed attributes stand-in: मोहर');

function errorWith(code: string, check?: (error: Error & { code: string; extra?: Record<string, unknown> }) => void) {
  return (error: unknown): boolean => {
    assert.ok(isMoharError(error), `MoharError expected, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    check?.(error as Error & { code: string; extra?: Record<string, unknown> });
    return true;
  };
}

describe('native: signing (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let module: Pkcs11Module;
  let work: string;
  const token = { label: 'Signing Token' };

  const certOf = (id: string): Uint8Array => hsm.keys.find((k) => k.id === id)!.certificateDer;

  /** Verification with node's crypto against the certificate's public key. */
  function nodeVerifies(certDer: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
    const key = new X509Certificate(certDer).publicKey;
    if (key.asymmetricKeyType === 'rsa') {
      return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    }
    return verify('sha256', data, key, signature); // DER ECDSA-Sig-Value expected
  }

  /** Independent verification with the openssl command (public key taken from the certificate by openssl). */
  function opensslVerifies(certDer: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
    const dir = mkdtempSync(join(work, 'v-'));
    writeFileSync(join(dir, 'cert.der'), certDer);
    writeFileSync(join(dir, 'data.bin'), data);
    writeFileSync(join(dir, 'sig.bin'), signature);
    const pub = execFileSync('openssl', ['x509', '-inform', 'DER', '-in', join(dir, 'cert.der'), '-pubkey', '-noout']);
    writeFileSync(join(dir, 'pub.pem'), pub);
    try {
      const out = execFileSync(
        'openssl',
        ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.bin'), join(dir, 'data.bin')],
        { encoding: 'utf8' },
      );
      return out.includes('Verified OK');
    } catch {
      return false;
    }
  }

  async function tokenFlags(): Promise<TokenInfo['flags']> {
    const found = (await module.listTokens()).find((t) => t.label === token.label);
    assert.ok(found);
    return found.flags;
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'mohar-native-sign-'));
    hsm = createSoftHsm({
      tokenLabel: token.label,
      keys: [
        {
          id: '01',
          label: 'rsa-signer',
          type: 'rsa',
          commonName: 'Asha Rao',
          email: 'asha@example.com',
          policies: [CCA_CLASS_3_POLICY],
        },
        { id: '02', label: 'ec-signer', type: 'ec', commonName: 'Ravi Kumar', email: 'ravi@example.com' },
        { id: '03', label: 'p384-signer', type: 'ec', curve: 'P-384', commonName: 'Meera Iyer' },
        { id: '09', label: 'expired-signer', type: 'rsa', commonName: 'Old Signer', expired: true },
      ],
    });
    module = await Pkcs11Module.open(hsm.modulePath);
  });

  after(async () => {
    await module?.close();
    hsm?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('RSA: CKM_SHA256_RSA_PKCS when the token lists it; verifies with node and openssl', async () => {
    const result = await module.signSha256({ token, certId: '01', pin: hsm.pin, data: DATA });
    assert.equal(result.mechanism, 'CKM_SHA256_RSA_PKCS');
    assert.equal(result.signature.length, 256);
    assert.equal(result.certificate.certId, '01');
    assert.ok(nodeVerifies(certOf('01'), DATA, result.signature));
    assert.ok(opensslVerifies(certOf('01'), DATA, result.signature));
    assert.ok(!nodeVerifies(certOf('01'), Buffer.from('other data'), result.signature));
  });

  test('RSA: forced CKM_RSA_PKCS over a SHA-256 DigestInfo gives the same (deterministic) signature', async () => {
    const viaDigestInfo = await module.signSha256({
      token,
      certId: '01',
      pin: hsm.pin,
      data: DATA,
      rsaMechanism: 'CKM_RSA_PKCS',
    });
    assert.equal(viaDigestInfo.mechanism, 'CKM_RSA_PKCS');
    assert.ok(nodeVerifies(certOf('01'), DATA, viaDigestInfo.signature));
    assert.ok(opensslVerifies(certOf('01'), DATA, viaDigestInfo.signature));
    const viaToken = await module.signSha256({
      token,
      certId: '01',
      pin: hsm.pin,
      data: DATA,
      rsaMechanism: 'CKM_SHA256_RSA_PKCS',
    });
    assert.deepEqual(Buffer.from(viaDigestInfo.signature), Buffer.from(viaToken.signature));
  });

  test('ECDSA P-256: CKM_ECDSA over the hash, r||s returned as DER; verifies with node and openssl', async () => {
    const result = await module.signSha256({ token, certId: '02', pin: hsm.pin, data: DATA });
    assert.equal(result.mechanism, 'CKM_ECDSA');
    assert.equal(result.signature[0], 0x30); // SEQUENCE { r INTEGER, s INTEGER }
    assert.ok(result.signature.length >= 8 && result.signature.length <= 72);
    assert.ok(nodeVerifies(certOf('02'), DATA, result.signature));
    assert.ok(opensslVerifies(certOf('02'), DATA, result.signature));
    // Not raw: the same signature interpreted as IEEE P1363 r||s must not verify.
    assert.ok(
      !verify(
        'sha256',
        DATA,
        { key: new X509Certificate(certOf('02')).publicKey, dsaEncoding: 'ieee-p1363' },
        result.signature,
      ),
    );
  });

  test('ECDSA P-384 with SHA-256', async () => {
    const result = await module.signSha256({
      token,
      certFingerprint: createHash('sha256').update(certOf('03')).digest('hex'),
      pin: hsm.pin,
      data: DATA,
    });
    assert.equal(result.mechanism, 'CKM_ECDSA');
    assert.equal(result.certificate.curve, 'P-384');
    assert.ok(nodeVerifies(certOf('03'), DATA, result.signature));
    assert.ok(opensslVerifies(certOf('03'), DATA, result.signature));
  });

  test('wrong PIN: pin_incorrect at C_Login (nothing signed), with the flags SoftHSM sets (count low, never final try)', async () => {
    assert.equal((await tokenFlags()).pinCountLow, false);
    await assert.rejects(
      module.signSha256({ token, certId: '01', pin: '000000', data: DATA }),
      errorWith('pin_incorrect', (error) => {
        assert.equal(error.extra?.operation, 'C_Login');
        assert.equal(error.extra?.ckr, 'CKR_PIN_INCORRECT');
        assert.equal(error.extra?.pinCountLow, true);
        assert.equal(error.extra?.pinFinalTry, false);
        assert.ok(!error.message.includes('000000'), 'the PIN is not in the message');
      }),
    );
    // SoftHSM 2.6 has no retry counter: ten more wrong PINs and it still only says "count low", never locks.
    for (let i = 0; i < 10; i++) {
      await assert.rejects(
        module.signSha256({ token, certId: '01', pin: `bad-${i}`, data: DATA }),
        errorWith('pin_incorrect', (e) => assert.equal(e.extra?.pinFinalTry, false)),
      );
    }
    assert.deepEqual(await tokenFlags(), {
      loginRequired: true,
      pinCountLow: true,
      pinFinalTry: false,
      pinLocked: false,
      pinToBeChanged: false,
    });
    // The right PIN still works and clears the flag.
    const result = await module.signSha256({ token, certId: '01', pin: hsm.pin, data: DATA });
    assert.ok(nodeVerifies(certOf('01'), DATA, result.signature));
    assert.equal((await tokenFlags()).pinCountLow, false);
  });

  test('an empty PIN is pin_incorrect without a login attempt', async () => {
    await assert.rejects(
      module.signSha256({ token, certId: '01', pin: '', data: DATA }),
      errorWith('pin_incorrect', (e) => assert.equal(e.extra?.ckr, 'CKR_PIN_LEN_RANGE')),
    );
    assert.equal((await tokenFlags()).pinCountLow, false, 'no failed login was counted');
  });

  test("final-try and locked flags as the token reports them (set in SoftHSM's token store; SoftHSM never sets them)", async () => {
    hsm.setPersistedTokenFlags(token.label, { set: pkcs11js.CKF_USER_PIN_FINAL_TRY });
    try {
      assert.equal((await tokenFlags()).pinFinalTry, true);
      await assert.rejects(
        module.signSha256({ token, certId: '01', pin: '999999', data: DATA }),
        errorWith('pin_incorrect', (e) => {
          assert.equal(e.extra?.pinFinalTry, true);
          assert.equal(e.extra?.pinCountLow, true);
        }),
      );
    } finally {
      hsm.setPersistedTokenFlags(token.label, {
        clear: pkcs11js.CKF_USER_PIN_FINAL_TRY | pkcs11js.CKF_USER_PIN_COUNT_LOW,
      });
    }

    hsm.setPersistedTokenFlags(token.label, { set: pkcs11js.CKF_USER_PIN_LOCKED });
    try {
      assert.equal((await tokenFlags()).pinLocked, true);
      // Even with the right PIN: the token says locked, so no attempt is made (SoftHSM's C_Login would
      // ignore its own flag; a real token answers CKR_PIN_LOCKED, which maps to the same code).
      await assert.rejects(
        module.signSha256({ token, certId: '01', pin: hsm.pin, data: DATA }),
        errorWith('pin_locked', (e) => assert.equal(e.extra?.ckr, 'CKR_PIN_LOCKED')),
      );
    } finally {
      hsm.setPersistedTokenFlags(token.label, { clear: pkcs11js.CKF_USER_PIN_LOCKED });
    }
    const result = await module.signSha256({ token, certId: '01', pin: hsm.pin, data: DATA });
    assert.ok(nodeVerifies(certOf('01'), DATA, result.signature));
  });

  test('unknown key id and a certificate without a key: key_not_found', async () => {
    await assert.rejects(
      module.signSha256({ token, certId: '7f', pin: hsm.pin, data: DATA }),
      errorWith('key_not_found', (e) => assert.match(e.message, /7f/)),
    );
    await assert.rejects(
      module.signSha256({ token, certId: 'ca01', pin: hsm.pin, data: DATA }),
      errorWith('key_not_found', (e) => assert.match(e.message, /no private key/)),
    );
    await assert.rejects(tokenSigner({ module, token, certId: '7f', pin: hsm.pin }), errorWith('key_not_found'));
    await assert.rejects(tokenSigner({ module, token, certId: 'ca01', pin: hsm.pin }), errorWith('key_not_found'));
  });

  test('an expired certificate is refused before any login (a wrong PIN is not even tried)', async () => {
    const expired = hsm.keys.find((k) => k.id === '09')!;
    assert.ok(new X509Certificate(expired.certificateDer).validTo.includes('2021'));
    assert.equal((await tokenFlags()).pinCountLow, false);
    await assert.rejects(
      module.signSha256({ token, certId: '09', pin: 'wrong-pin', data: DATA }),
      errorWith('certificate_expired', (e) => {
        assert.match(e.message, /expired on 2021-01-01/);
        assert.equal(e.extra?.notAfter, '2021-01-01T00:00:00.000Z');
      }),
    );
    // SoftHSM marks every failed C_Login with "count low": still clear, so no login happened.
    assert.equal((await tokenFlags()).pinCountLow, false);
    await assert.rejects(
      tokenSigner({ module, token, certId: '09', pin: 'wrong-pin' }),
      errorWith('certificate_expired'),
    );

    // The key itself works: at a time inside the validity the same certificate signs.
    const then = new Date('2020-06-01T00:00:00Z');
    const result = await module.signSha256({ token, certId: '09', pin: hsm.pin, data: DATA, now: then });
    assert.ok(nodeVerifies(expired.certificateDer, DATA, result.signature));
    // ... and not before its notBefore.
    await assert.rejects(
      module.signSha256({ token, certId: '09', pin: hsm.pin, data: DATA, now: new Date('2019-01-01T00:00:00Z') }),
      errorWith('certificate_expired', (e) => assert.match(e.message, /not valid before/)),
    );
  });

  test('tokenSigner: the SignatureProvider shape, chain read from the token, one-use PIN string', async () => {
    const signer = await tokenSigner({ module, token, certId: '02', pin: hsm.pin });
    assert.equal(signer.keyType, 'EC');
    assert.deepEqual(Buffer.from(signer.certificate), Buffer.from(certOf('02')));
    // The intermediate CA certificate on the token is the chain (the root is not on the token).
    assert.equal(signer.chain.length, 1);
    assert.deepEqual(Buffer.from(signer.chain[0]!), Buffer.from(hsm.chainDer[0]!));
    const signature = await signer.sign(DATA);
    assert.ok(nodeVerifies(signer.certificate, DATA, signature));
    assert.ok(opensslVerifies(signer.certificate, DATA, signature));
    await assert.rejects(signer.sign(DATA), /one sign\(\) call/);

    // A chain given by the caller is used as is; a PIN provider is asked on each sign().
    let asked = 0;
    const rsa = await tokenSigner({
      module,
      token,
      certId: '01',
      chain: hsm.chainDer,
      rsaMechanism: 'CKM_RSA_PKCS',
      pin: () => {
        asked += 1;
        return hsm.pin;
      },
    });
    assert.equal(rsa.keyType, 'RSA');
    assert.equal(rsa.chain.length, 2);
    for (let i = 0; i < 2; i++) assert.ok(nodeVerifies(rsa.certificate, DATA, await rsa.sign(DATA)));
    assert.equal(asked, 2);
  });

  test('tokenSigner refuses to sign once the certificate has expired, without asking for the PIN', async () => {
    let clock = new Date();
    let asked = 0;
    const signer = await tokenSigner({
      module,
      token,
      certId: '01',
      now: () => clock,
      pin: () => {
        asked += 1;
        return hsm.pin;
      },
    });
    clock = new Date('2100-01-01T00:00:00Z');
    await assert.rejects(signer.sign(DATA), errorWith('certificate_expired'));
    assert.equal(asked, 0);
  });

  test('the event loop keeps turning while the token signs', async () => {
    let ticks = 0;
    let last = performance.now();
    let longestGap = 0;
    let running = true;
    const spin = (): void => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const jobs = [];
    for (let i = 0; i < 12; i++) {
      jobs.push(
        module.signSha256({
          token,
          certId: i % 2 === 0 ? '01' : '02',
          pin: hsm.pin,
          data: Buffer.from(`document ${i}`),
        }),
      );
    }
    const results = await Promise.all(jobs);
    running = false;
    results.forEach((r, i) =>
      assert.ok(nodeVerifies(certOf(i % 2 === 0 ? '01' : '02'), Buffer.from(`document ${i}`), r.signature)),
    );
    // The queue ran them one at a time, with event-loop turns in between and during C_SignAsync.
    assert.ok(ticks >= 12, `only ${ticks} event-loop turns during 12 signatures`);
    assert.ok(longestGap < 250, `event loop blocked for ${longestGap.toFixed(1)} ms`);
  });
});
