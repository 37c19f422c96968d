/**
 * A fresh SoftHSM2 token per test run, with keys generated ON the token and certificates from the test PKI.
 *
 *   const hsm = createSoftHsm();            // BEFORE any PKCS#11 module is loaded in this process
 *   hsm.modulePath                          // /usr/lib/softhsm/libsofthsm2.so (or MOHAR_TEST_SOFTHSM_MODULE)
 *   hsm.tokenLabel / hsm.pin / hsm.soPin / hsm.tokenSerial
 * hsm.keys                                // [{ id: '01', label, type: 'RSA' | 'EC', certificateId, certificateDer,
 * publicKeyDer, ... }]
 *   hsm.chainDer                            // [intermediate, root] DER (the intermediate is also written to the token)
 *   hsm.pki                                 // the TestPki that issued the certificates (test/support/pki.ts)
 *   hsm.cleanup()                           // removes the token dir and the PKI (after the module is closed)
 *
 * Environment: SoftHSM reads its configuration file (SOFTHSM2_CONF) when a process calls C_Initialize,
 * and only then. createSoftHsm() writes its own softhsm2.conf (directories.tokendir = a new temp dir) and
 * SETS process.env.SOFTHSM2_CONF to it, so call it before the module is loaded/initialised in this
 * process (node:test runs every test file in its own process, so one createSoftHsm() per test file).
 * Child processes (softhsm2-util, pkcs11-tool) get the same variable explicitly.
 *
 * What SoftHSM 2.6 does (checked, and relied on by test/native):
 *   - A wrong PIN gives CKR_PIN_INCORRECT and sets CKF_USER_PIN_COUNT_LOW in the token flags; a right PIN
 *     clears it. There is no retry counter: CKF_USER_PIN_FINAL_TRY and CKF_USER_PIN_LOCKED are never set by
 *     SoftHSM itself, however many wrong PINs are tried, and SoftHSM never answers CKR_PIN_LOCKED or
 *     CKR_PIN_EXPIRED. Flags written into its token store (setPersistedTokenFlags) are reported by
 *     C_GetTokenInfo, but its C_Login ignores them (a "locked" SoftHSM token still accepts the right PIN).
 *   - The slot list is built in C_Initialize: tokens created by another process (softhsm2-util) appear only
 *     after C_Finalize + C_Initialize. A token deleted by another process stays in C_GetSlotList(true) but
 *     C_GetTokenInfo on its slot fails (CKR_GENERAL_ERROR); after re-initialisation it is gone.
 *   - C_WaitForSlotEvent is not implemented (CKR_FUNCTION_NOT_SUPPORTED).
 */
import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { Pkcs11Module } from '../../native/index.js';
import { CCA_CLASS_2_POLICY, createTestPki, type IssuedCertificate, type TestPki } from './pki.js';

export const SOFTHSM_MODULE = process.env.MOHAR_TEST_SOFTHSM_MODULE ?? '/usr/lib/softhsm/libsofthsm2.so';

/** One key pair to put on the token. */
export interface TokenKeySpec {
  /** CKA_ID of the key pair, hex (e.g. "01"). */
  id: string;
  label: string;
  type: 'rsa' | 'ec';
  /** EC only: P-256 (default) or P-384. */
  curve?: 'P-256' | 'P-384';
  commonName: string;
  email?: string;
  policies?: readonly string[];
  /** keyUsage of the certificate (openssl names); default "digitalSignature, nonRepudiation". */
  keyUsage?: string;
  /** Validity of the certificate in days from now (default 365). */
  days?: number;
  crlUrl?: string;
  ocspUrl?: string;
  /**
   * CKA_ID of the certificate object, hex. Default: the key's id. A different value makes the certificate
   * match its key only by public key (modulus / EC point); null writes no certificate at all.
   */
  certificateId?: string | null;
  /**
   * Issue an expired certificate (2020-01-01 .. 2021-01-01). `openssl ca` needs a CSR to back-date, so this
   * key is generated in software and imported onto the token (pkcs11-tool --write-object --type privkey).
   */
  expired?: boolean;
}

export interface TokenKey {
  /** CKA_ID of the key pair (hex, lower case). */
  readonly id: string;
  readonly label: string;
  readonly type: 'RSA' | 'EC';
  /** CKA_ID of the certificate object (hex), or null when no certificate was written. */
  readonly certificateId: string | null;
  /** DER certificate (empty when certificateId is null). */
  readonly certificateDer: Uint8Array;
  readonly certificate: IssuedCertificate | null;
  /** DER SubjectPublicKeyInfo of the key. */
  readonly publicKeyDer: Uint8Array;
  /** True when the private key was generated on the token (false: imported software key). */
  readonly generatedOnToken: boolean;
}

export interface SoftHsmOptions {
  tokenLabel?: string;
  pin?: string;
  soPin?: string;
  /** Default: DEFAULT_TOKEN_KEYS (an RSA-2048 and an EC P-256 key pair, ids 01 and 02). */
  keys?: readonly TokenKeySpec[];
  /** Reuse an existing test PKI (otherwise a new one is made and cleaned up with the token). */
  pki?: TestPki;
  /** Write the intermediate CA certificate to the token (default true), CKA_ID "ca01". */
  writeIntermediate?: boolean;
}

export interface SoftHsm {
  readonly modulePath: string;
  /** The softhsm2.conf written for this run (also in process.env.SOFTHSM2_CONF). */
  readonly confPath: string;
  readonly tokenDir: string;
  readonly tokenLabel: string;
  readonly tokenSerial: string;
  readonly pin: string;
  readonly soPin: string;
  readonly keys: readonly TokenKey[];
  /** [intermediate, root] DER. */
  readonly chainDer: readonly Uint8Array[];
  readonly pki: TestPki;
  /** Initialises another token (in the next free slot) with softhsm2-util; returns its serial. */
  initToken(label: string, pin?: string, soPin?: string): string;
  /** Deletes a token with softhsm2-util (the module keeps the slot until re-initialised, see above). */
  deleteToken(label: string): void;
  /**
   * Rewrites the token flags SoftHSM keeps in its token store (e.g. CKF_USER_PIN_LOCKED or
   * CKF_USER_PIN_FINAL_TRY, which SoftHSM never sets itself) and bumps the store's generation so a loaded
   * SoftHSM re-reads it. Test-only surgery on the real module's state: C_GetTokenInfo then reports these
   * flags (SoftHSM's own C_Login does not act on them).
   */
  setPersistedTokenFlags(label: string, change: { set?: number; clear?: number }): void;
  /** Runs pkcs11-tool against this token (adds --module and --token-label). */
  pkcs11Tool(args: readonly string[]): string;
  cleanup(): void;
}

export const DEFAULT_TOKEN_KEYS: readonly TokenKeySpec[] = [
  {
    id: '01',
    label: 'rsa-signer',
    type: 'rsa',
    commonName: 'Asha Rao',
    email: 'asha@example.com',
    policies: [CCA_CLASS_2_POLICY],
  },
  { id: '02', label: 'ec-signer', type: 'ec', commonName: 'Ravi Kumar', email: 'ravi@example.com' },
];

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    // Never echo PINs into logs: mask the argument after --pin / --so-pin.
    const shown = args.map((a, i) => (i > 0 && /^--(so-)?pin$/.test(args[i - 1] ?? '') ? '****' : a));
    throw new Error(`${command} ${shown.join(' ')} failed: ${stderr || String(error)}`);
  }
}

function checkHexId(id: string): string {
  if (!/^([0-9a-f]{2})+$/i.test(id)) throw new Error(`CKA_ID must be hex bytes: ${id}`);
  return id.toLowerCase();
}

/** CKA_OS_TOKENFLAGS in SoftHSM's object store (src/lib/object_store/OSAttributes.h). */
const CKA_OS_TOKENFLAGS = 0x8000534bn;

/**
 * Walks SoftHSM's file-backend token.object: an 8-byte generation counter, then attributes
 * { u64 type, u64 kind (1 bool, 2 ulong, 3 bytes), value } in big-endian. Returns the offset of the flags value.
 */
function findTokenFlagsOffset(file: Buffer): number {
  let offset = 8;
  while (offset + 16 <= file.length) {
    const type = file.readBigUInt64BE(offset);
    const kind = file.readBigUInt64BE(offset + 8);
    offset += 16;
    if (type === CKA_OS_TOKENFLAGS) {
      if (kind !== 2n) throw new Error('unexpected SoftHSM token flags encoding');
      return offset;
    }
    if (kind === 1n) offset += 1;
    else if (kind === 2n) offset += 8;
    else if (kind === 3n) offset += 8 + Number(file.readBigUInt64BE(offset));
    else throw new Error(`unknown SoftHSM attribute kind ${kind} before the token flags`);
  }
  throw new Error('SoftHSM token flags not found');
}

/** SubjectPublicKeyInfo DER of the EC public key with CKA_ID `id`, from `pkcs11-tool --list-objects` output. */
function ecPublicKeyFromListing(listing: string, id: string, curve: 'P-256' | 'P-384'): Uint8Array {
  for (const block of listing.split(/\n(?=Public Key Object)/)) {
    const idMatch = /\n\s*ID:\s*([0-9a-f]+)/i.exec(block);
    const point = /EC_POINT:\s*([0-9a-f]+)/i.exec(block);
    if (!idMatch || !point || idMatch[1]!.toLowerCase() !== id) continue;
    let bytes = Buffer.from(point[1]!, 'hex');
    // CKA_EC_POINT is a DER OCTET STRING around 04||X||Y.
    if (bytes[0] === 0x04 && bytes[1] === bytes.length - 2) bytes = bytes.subarray(2);
    else if (bytes[0] === 0x04 && bytes[1] === 0x81 && bytes[2] === bytes.length - 3) bytes = bytes.subarray(3);
    const size = (bytes.length - 1) / 2;
    const jwk = {
      kty: 'EC',
      crv: curve,
      x: bytes.subarray(1, 1 + size).toString('base64url'),
      y: bytes.subarray(1 + size).toString('base64url'),
    };
    return new Uint8Array(createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
  }
  throw new Error(`no EC public key with id ${id} on the token`);
}

/**
 * Makes the token. Takes ~1-2 s (two RSA-2048 key generations dominate). Call before loading the module.
 */
export function createSoftHsm(options: SoftHsmOptions = {}): SoftHsm {
  const root = mkdtempSync(join(tmpdir(), 'mohar-softhsm-'));
  const pki = options.pki ?? createTestPki();
  try {
    return buildSoftHsm(root, pki, options);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    if (options.pki === undefined) pki.cleanup();
    throw error;
  }
}

function buildSoftHsm(root: string, pki: TestPki, options: SoftHsmOptions): SoftHsm {
  const tokenDir = join(root, 'tokens');
  mkdirSync(tokenDir);
  const confPath = join(root, 'softhsm2.conf');
  writeFileSync(
    confPath,
    `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  process.env.SOFTHSM2_CONF = confPath;
  const env = { ...process.env, SOFTHSM2_CONF: confPath };

  const tokenLabel = options.tokenLabel ?? 'Mohar Test Token';
  const pin = options.pin ?? '123456';
  const soPin = options.soPin ?? '87654321';
  const ownPki = options.pki === undefined;
  const modulePath = SOFTHSM_MODULE;

  const util = (args: readonly string[]): string => run('softhsm2-util', args, env);
  const tool = (label: string, args: readonly string[]): string =>
    run('pkcs11-tool', ['--module', modulePath, '--token-label', label, ...args], env);
  const serialOf = (label: string): string => {
    const out = util(['--show-slots']);
    for (const block of out.split(/\n(?=Slot )/)) {
      const labelMatch = /Label:\s*(.*)/.exec(block);
      if (labelMatch && labelMatch[1]!.trim() === label) {
        const serial = /Serial number:\s*(\S+)/.exec(block);
        if (serial) return serial[1]!;
      }
    }
    throw new Error(`no SoftHSM token labelled ${label}`);
  };
  const initToken = (label: string, userPin = pin, so = soPin): string => {
    util(['--init-token', '--free', '--label', label, '--pin', userPin, '--so-pin', so]);
    return serialOf(label);
  };

  const tokenSerial = initToken(tokenLabel);
  const onToken = (args: readonly string[]): string => tool(tokenLabel, ['--login', '--pin', pin, ...args]);
  const keys: TokenKey[] = [];
  for (const spec of options.keys ?? DEFAULT_TOKEN_KEYS) {
    const id = checkHexId(spec.id);
    const certificateId = spec.certificateId === null ? null : checkHexId(spec.certificateId ?? id);
    const base = join(root, `key-${id}`);
    let certificate: IssuedCertificate | null = null;
    let publicKeyDer: Uint8Array;
    if (spec.expired) {
      if (spec.curve === 'P-384') throw new Error('expired keys are RSA-2048 or P-256');
      const credential = pki.issueExpired({
        commonName: spec.commonName,
        email: spec.email,
        keyType: spec.type,
        policies: spec.policies,
      });
      writeFileSync(`${base}.p8.der`, credential.keyDer);
      onToken([
        '--write-object',
        `${base}.p8.der`,
        '--type',
        'privkey',
        '--id',
        id,
        '--label',
        spec.label,
        '--usage-sign',
      ]);
      publicKeyDer = new Uint8Array(
        execFileSync('openssl', ['pkey', '-in', credential.keyPath, '-pubout', '-outform', 'DER']),
      );
      certificate = credential;
    } else {
      const keyType = spec.type === 'rsa' ? 'rsa:2048' : spec.curve === 'P-384' ? 'EC:secp384r1' : 'EC:prime256v1';
      onToken(['--keypairgen', '--key-type', keyType, '--id', id, '--label', spec.label, '--usage-sign']);
      if (spec.type === 'rsa') {
        tool(tokenLabel, ['--read-object', '--type', 'pubkey', '--id', id, '-o', `${base}.pub.der`]);
        publicKeyDer = new Uint8Array(readFileSync(`${base}.pub.der`));
      } else {
        // pkcs11-tool --read-object cannot export P-384 keys ("cannot create EVP_PKEY"): take the point.
        publicKeyDer = ecPublicKeyFromListing(
          tool(tokenLabel, ['--list-objects', '--type', 'pubkey']),
          id,
          spec.curve ?? 'P-256',
        );
      }
      if (certificateId !== null) {
        certificate = pki.issueSigner({
          publicKey: publicKeyDer,
          commonName: spec.commonName,
          email: spec.email,
          policies: spec.policies,
          keyUsage: spec.keyUsage,
          days: spec.days,
          crlUrl: spec.crlUrl,
          ocspUrl: spec.ocspUrl,
        });
      }
    }
    if (certificate && certificateId !== null) {
      writeFileSync(`${base}.cert.der`, certificate.certDer);
      onToken(['--write-object', `${base}.cert.der`, '--type', 'cert', '--id', certificateId, '--label', spec.label]);
    }
    keys.push({
      id,
      label: spec.label,
      type: spec.type === 'rsa' ? 'RSA' : 'EC',
      certificateId: certificate ? certificateId : null,
      certificateDer: certificate ? certificate.certDer : new Uint8Array(),
      certificate,
      publicKeyDer,
      generatedOnToken: !spec.expired,
    });
  }
  if (options.writeIntermediate !== false) {
    writeFileSync(join(root, 'intermediate.der'), pki.intermediate.certDer);
    onToken([
      '--write-object',
      join(root, 'intermediate.der'),
      '--type',
      'cert',
      '--id',
      'ca01',
      '--label',
      'Intermediate CA',
    ]);
  }

  const tokenStoreOf = (label: string): string => {
    const serial = serialOf(label);
    // SoftHSM names the token dir by a UUID whose last 16 hex digits are the token serial.
    for (const name of readdirSync(tokenDir)) {
      if (name.replace(/-/g, '').endsWith(serial)) return join(tokenDir, name, 'token.object');
    }
    throw new Error(`token store of ${label} not found`);
  };

  return {
    modulePath,
    confPath,
    tokenDir,
    tokenLabel,
    tokenSerial,
    pin,
    soPin,
    keys,
    pki,
    chainDer: pki.chainDer,
    initToken,
    deleteToken(label) {
      util(['--delete-token', '--token', label]);
    },
    setPersistedTokenFlags(label, change) {
      const path = tokenStoreOf(label);
      const file = readFileSync(path);
      const at = findTokenFlagsOffset(file);
      let flags = file.readBigUInt64BE(at);
      flags = (flags | BigInt(change.set ?? 0)) & ~BigInt(change.clear ?? 0);
      file.writeBigUInt64BE(flags, at);
      file.writeBigUInt64BE(file.readBigUInt64BE(0) + 1n, 0);
      writeFileSync(path, file);
    },
    pkcs11Tool(args) {
      return tool(tokenLabel, args);
    },
    cleanup() {
      if (existsSync(root)) rmSync(root, { recursive: true, force: true });
      if (ownPki) pki.cleanup();
    },
  };
}

/**
 * Registers before/after hooks at the top of a test file: one fresh SoftHSM2 token and its module opened
 * through native/, for tests that sign with the token. Read them from the holder inside tests.
 */
/** `options` is called in before() (so it may use what earlier hooks made, e.g. useDscTrust's PKI). */
export function useSoftHsmModule(options?: () => SoftHsmOptions | Promise<SoftHsmOptions>): {
  hsm: SoftHsm;
  module: Pkcs11Module;
} {
  const holder = {} as { hsm: SoftHsm; module: Pkcs11Module };
  before(async () => {
    holder.hsm = createSoftHsm(await options?.());
    holder.module = await Pkcs11Module.open(holder.hsm.modulePath);
  });
  after(async () => {
    await holder.module?.close();
    holder.hsm?.cleanup();
  });
  return holder;
}
