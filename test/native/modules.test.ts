/**
 * Module discovery and loading (a broken path is reported, the other modules keep working), the single
 * CKR → MoharError translation, and the X.509 / DER helpers on certificates from the test PKI.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSign, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';
import { CCA_CLASS_1_POLICY, CCA_CLASS_3_POLICY, createTestPki, type TestPki } from '../support/pki.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import {
  ccaClassOf,
  ckrName,
  ecdsaRawToDer,
  findModules,
  knownModules,
  openModules,
  parseCertificate,
  Pkcs11Module,
  sha256DigestInfo,
  translatePkcs11Error,
} from '../../native/index.js';
import { MoharError } from '../../common/errors.js';

const OPENSC = '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so';

describe('native: module paths', () => {
  test('known vendor paths per OS, existing ones first from the caller, each once', () => {
    const win = knownModules('win32').map((m) => m.path);
    assert.ok(win.includes('C:\\Windows\\System32\\eps2003csp11.dll'));
    assert.ok(win.includes('C:\\Windows\\System32\\SignatureP11.dll'));
    assert.ok(win.includes('C:\\Windows\\System32\\CryptoIDA_pkcs11.dll'));
    assert.ok(win.includes('C:\\Windows\\System32\\eTPKCS11.dll'));
    assert.ok(win.includes('C:\\Windows\\System32\\IDPrimePKCS11.dll'));
    const linux = knownModules('linux').map((m) => m.path);
    assert.ok(linux.includes('/usr/lib/libcastle.so.1.0.0'));
    assert.ok(linux.includes('/usr/lib/WatchData/ProxKey/lib/libwdpkcs_SignatureP11.so'));
    assert.ok(linux.includes('/usr/lib/libeTPkcs11.so'));
    const mac = knownModules('darwin').map((m) => m.path);
    assert.ok(mac.includes('/usr/local/lib/libcastle_v2.1.0.0.dylib'));
    assert.ok(mac.includes('/usr/local/lib/libeTPkcs11.dylib'));
    assert.equal(knownModules('freebsd'), knownModules('linux'));

    const present = new Set([
      'C:\\Windows\\System32\\eTPKCS11.dll',
      'C:\\Windows\\System32\\eps2003csp11.dll',
      'D:\\vendor\\p11.dll',
    ]);
    const found = findModules({
      platform: 'win32',
      extraPaths: ['D:\\vendor\\p11.dll', 'D:\\missing.dll', 'c:\\windows\\system32\\ETPKCS11.DLL'],
      exists: (path) => [...present].some((p) => p.toLowerCase() === path.toLowerCase()),
    });
    assert.deepEqual(found, [
      { path: 'D:\\vendor\\p11.dll', vendor: null, product: null, source: 'extra' },
      { path: 'c:\\windows\\system32\\ETPKCS11.DLL', vendor: null, product: null, source: 'extra' },
      {
        path: 'C:\\Windows\\System32\\eps2003csp11.dll',
        vendor: 'Longmai/Feitian',
        product: 'ePass2003',
        source: 'known',
      },
    ]);
  });

  test(
    "on this machine: the caller's SoftHSM path and the installed OpenSC module, symlinks once",
    { skip: !existsSync(OPENSC) && 'OpenSC not installed' },
    () => {
      const found = findModules({
        platform: 'linux',
        extraPaths: ['/usr/lib/softhsm/libsofthsm2.so', '/nonexistent/lib.so'],
      });
      assert.deepEqual(found[0], {
        path: '/usr/lib/softhsm/libsofthsm2.so',
        vendor: null,
        product: null,
        source: 'extra',
      });
      const opensc = found.filter((m) => m.vendor === 'OpenSC');
      assert.equal(opensc.length, 1, JSON.stringify(opensc)); // .../pkcs11/opensc-pkcs11.so is a symlink to it
      assert.ok(!found.some((m) => m.path === '/nonexistent/lib.so'));
    },
  );
});

describe('native: loading modules (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let dir: string;

  before(() => {
    hsm = createSoftHsm({ keys: [], writeIntermediate: false, tokenLabel: 'Load Token' });
    dir = mkdtempSync(join(tmpdir(), 'mohar-native-load-'));
  });

  after(() => {
    hsm?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a missing or broken module is module_load_failed naming the path and the OS error; the others still work', async () => {
    const notALibrary = join(dir, 'not-a-library.so');
    writeFileSync(notALibrary, Buffer.alloc(4096, 'not an ELF shared object\n'));
    const missing = join(dir, 'libmissing-pkcs11.so');
    const paths = [missing, hsm.modulePath, notALibrary, ...(existsSync(OPENSC) ? [OPENSC] : [])];
    const { modules, failures } = await openModules(paths);
    try {
      assert.deepEqual(
        failures.map((f) => f.path),
        [missing, notALibrary],
      );
      const [gone, broken] = failures;
      assert.equal(gone!.error.code, 'module_load_failed');
      assert.ok(gone!.error.message.includes(missing), gone!.error.message);
      assert.match(gone!.error.message, /No such file or directory/);
      assert.equal(gone!.error.extra?.modulePath, missing);
      assert.equal(broken!.error.code, 'module_load_failed');
      assert.ok(broken!.error.message.includes(notALibrary));
      assert.match(broken!.error.message, /ELF|invalid/i);

      assert.equal(modules.length, paths.length - 2);
      const softhsm = modules.find((m) => m.path === hsm.modulePath)!;
      const tokens = await softhsm.listTokens();
      assert.ok(tokens.some((t) => t.label === 'Load Token'));
      const opensc = modules.find((m) => m.path === OPENSC);
      if (opensc) assert.deepEqual(await opensc.listTokens(), []); // no reader here: no tokens, but it works
      await assert.rejects(Pkcs11Module.open(missing), { code: 'module_load_failed' });
    } finally {
      for (const m of modules) await m.close();
    }
  });

  test('the same library opened twice is shared and stays usable until the last handle closes', async () => {
    const a = await Pkcs11Module.open(hsm.modulePath);
    const b = await Pkcs11Module.open(hsm.modulePath);
    await a.close();
    await a.close(); // idempotent
    assert.ok((await b.listTokens()).some((t) => t.label === 'Load Token'));
    await assert.rejects(a.listTokens(), { code: 'pkcs11_error' });
    await b.close();
    // Reopening after the last close initialises the library again.
    const c = await Pkcs11Module.open(hsm.modulePath);
    assert.ok((await c.listTokens()).some((t) => t.label === 'Load Token'));
    // Opening while the last close is still finalising waits for it instead of racing C_Finalize.
    const closing = c.close();
    const d = await Pkcs11Module.open(hsm.modulePath);
    await closing;
    assert.ok((await d.listTokens()).some((t) => t.label === 'Load Token'));
    await d.close();
  });
});

describe('native: translatePkcs11Error (the one CKR → code table)', () => {
  const fail = (code: number, operation = 'C_Sign') =>
    new pkcs11js.Pkcs11Error(`${ckrName(code)}:${code}`, code, operation);

  test('maps each CKR family to its stable code', () => {
    const cases: [number, string][] = [
      [pkcs11js.CKR_PIN_INCORRECT, 'pin_incorrect'],
      [pkcs11js.CKR_PIN_LEN_RANGE, 'pin_incorrect'],
      [pkcs11js.CKR_PIN_LOCKED, 'pin_locked'],
      [pkcs11js.CKR_PIN_EXPIRED, 'pin_expired'],
      [pkcs11js.CKR_TOKEN_NOT_PRESENT, 'token_not_present'],
      [pkcs11js.CKR_DEVICE_REMOVED, 'token_removed'],
      [pkcs11js.CKR_SESSION_HANDLE_INVALID, 'token_removed'],
      [pkcs11js.CKR_SESSION_CLOSED, 'token_removed'],
      [pkcs11js.CKR_MECHANISM_INVALID, 'mechanism_not_supported'],
      [pkcs11js.CKR_KEY_HANDLE_INVALID, 'key_not_found'],
      [pkcs11js.CKR_USER_NOT_LOGGED_IN, 'pkcs11_error'],
      [pkcs11js.CKR_GENERAL_ERROR, 'pkcs11_error'],
    ];
    for (const [ckr, code] of cases) {
      const error = translatePkcs11Error(fail(ckr), { operation: 'C_Sign', token: 'T' });
      assert.ok(error instanceof MoharError);
      assert.equal(error.code, code, ckrName(ckr));
      assert.equal(error.extra?.ckr, ckrName(ckr));
    }
  });

  test('unknown CKR values keep their name (or hex) in the message; pin_incorrect carries the flags', () => {
    const general = translatePkcs11Error(fail(pkcs11js.CKR_USER_NOT_LOGGED_IN), { operation: 'C_SignInit' });
    assert.match(general.message, /C_SignInit failed: CKR_USER_NOT_LOGGED_IN/);
    const vendor = translatePkcs11Error(new pkcs11js.Pkcs11Error('CKR_VENDOR:2147483905', 0x80000101, 'C_Login'), {
      operation: 'C_Login',
    });
    assert.equal(vendor.code, 'pkcs11_error');
    assert.match(vendor.message, /CKR_0x80000101/);
    const pin = translatePkcs11Error(fail(pkcs11js.CKR_PIN_INCORRECT, 'C_Login'), {
      operation: 'C_Login',
      tokenFlags: pkcs11js.CKF_LOGIN_REQUIRED | pkcs11js.CKF_USER_PIN_COUNT_LOW | pkcs11js.CKF_USER_PIN_FINAL_TRY,
    });
    assert.deepEqual({ low: pin.extra?.pinCountLow, final: pin.extra?.pinFinalTry }, { low: true, final: true });
    const already = new MoharError('key_not_found', 'x');
    assert.equal(translatePkcs11Error(already, { operation: 'C_Sign' }), already);
    const load = translatePkcs11Error(new Error('/x.so: cannot open shared object file'), {
      operation: 'load',
      modulePath: '/x.so',
    });
    assert.equal(load.code, 'module_load_failed');
    assert.equal(load.message, 'cannot load PKCS#11 module /x.so: /x.so: cannot open shared object file');
  });
});

describe('native: DER and X.509 helpers', () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki?.cleanup());

  test('ecdsaRawToDer: r||s to SEQUENCE { r, s } that node accepts, including high bits and leading zeros', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 50; i++) {
      const data = Buffer.from(`message ${i}`);
      const raw = createSign('sha256').update(data).sign({ key: privateKey, dsaEncoding: 'ieee-p1363' });
      const der = ecdsaRawToDer(new Uint8Array(raw));
      assert.ok(verify('sha256', data, publicKey, der), `signature ${i}`);
    }
    // Hand-made edge cases: a zero-led r and a high-bit s.
    const raw = new Uint8Array(64);
    raw[31] = 1;
    raw[32] = 0x80;
    assert.deepEqual(Buffer.from(ecdsaRawToDer(raw)).toString('hex'), `3026020101022100${'80'}${'00'.repeat(31)}`);
    assert.throws(() => ecdsaRawToDer(new Uint8Array(63)), { code: 'pkcs11_error' });
  });

  test('sha256DigestInfo: the fixed DER prefix plus the hash', () => {
    const hash = new Uint8Array(32).fill(0xab);
    assert.equal(
      Buffer.from(sha256DigestInfo(hash)).toString('hex'),
      `3031300d060960864801650304020105000420${'ab'.repeat(32)}`,
    );
  });

  test('parseCertificate on the test PKI: TSA, OCSP responder, SAN-only e-mail, CCA classes', () => {
    const tsa = parseCertificate(pki.issueTsa({ keyType: 'ec' }).certDer);
    assert.deepEqual(tsa.extendedKeyUsage, ['1.3.6.1.5.5.7.3.8']);
    assert.equal(tsa.keyType, 'EC');
    assert.equal(tsa.curve, 'P-256');
    const ocsp = parseCertificate(pki.issueOcspResponder().certDer);
    assert.deepEqual(ocsp.extendedKeyUsage, ['1.3.6.1.5.5.7.3.9']);
    assert.deepEqual(ocsp.keyUsage, ['digitalSignature']);
    const root = parseCertificate(pki.root.certDer);
    assert.equal(root.isCa, true);
    assert.equal(root.selfIssued, true);
    assert.equal(root.subject, 'CN=Mohar Test Root CA,O=Mohar Test,C=IN');

    const signer = parseCertificate(
      pki.issueSoftwareSigner({
        commonName: 'Dev, "Ops" + Co',
        email: 'dev@example.com',
        policies: ['1.2.3.4', CCA_CLASS_3_POLICY],
      }).certDer,
    );
    assert.equal(signer.subjectCommonName, 'Dev, "Ops" + Co');
    assert.equal(signer.subject, 'emailAddress=dev@example.com,CN=Dev\\, \\"Ops\\" \\+ Co,O=Mohar Test,C=IN');
    assert.deepEqual(signer.ccaClass, { oid: CCA_CLASS_3_POLICY, name: 'Class 3', level: 3 });
    assert.equal(signer.selfIssued, false);
    const sanOnly = parseCertificate(
      pki.issueSoftwareSigner({
        commonName: 'SAN Only',
        email: 'san@example.com',
        emailInSubject: false,
        keyType: 'ec',
      }).certDer,
    );
    assert.equal(sanOnly.subject, 'CN=SAN Only,O=Mohar Test,C=IN');
    assert.equal(sanOnly.email, 'san@example.com');

    assert.deepEqual(ccaClassOf([CCA_CLASS_1_POLICY]), { oid: CCA_CLASS_1_POLICY, name: 'Class 1', level: 1 });
    assert.deepEqual(ccaClassOf(['2.16.356.100.2.4.1']), {
      oid: '2.16.356.100.2.4.1',
      name: 'CCA India policy 2.16.356.100.2.4.1',
      level: null,
    });
    assert.deepEqual(ccaClassOf(['2.16.356.100.2.4.1', CCA_CLASS_3_POLICY])?.level, 3);
    assert.equal(ccaClassOf(['2.16.356.100.20.1']), null);
    assert.throws(() => parseCertificate(new Uint8Array([1, 2, 3])), { code: 'invalid_certificate' });
  });
});
