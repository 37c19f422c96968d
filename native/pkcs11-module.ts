/**
 * One PKCS#11 module (library file) over pkcs11js: load + C_Initialize, tokens, certificates with their
 * keys, SHA-256 signing, C_Finalize.
 *
 * - All work on one library goes through one SerialQueue: one operation at a time, every operation opens
 *   its own session and closes it (and logs out) before the next starts, so no session or login outlives
 *   a call. The same file opened twice shares one loaded library (the OS would share it anyway).
 * - The PIN is an argument of the one call that needs it (signSha256, or listCertificates when asked to
 *   log in). It is passed to C_Login and dropped; never stored, logged or retried.
 * - Signing uses C_SignAsync (runs on a libuv worker thread); the other pkcs11js calls (C_Login, find,
 *   attributes) are synchronous and short, with event-loop turns in between.
 * - PKCS#11 errors become MoharError codes in native/errors.ts (translatePkcs11Error) only.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pkcs11js from 'pkcs11js';
import { MoharError } from '../common/errors.js';
import { ckrName, ckrOf, pkcs11Failure, translatePkcs11Error, type Pkcs11ErrorContext } from './errors.js';
import {
  assertKeyBelongsToCertificate,
  chooseMechanism,
  pickCertificate,
  signOnToken,
  type RsaMechanismChoice,
  type SignatureMechanism,
} from './sign-steps.js';
import { SerialQueue } from './queue.js';
import { parseCertificate, toHex, type CertificateInfo } from './x509.js';

type Handle = pkcs11js.Handle;

export interface TokenFlags {
  readonly loginRequired: boolean;
  readonly pinCountLow: boolean;
  readonly pinFinalTry: boolean;
  readonly pinLocked: boolean;
  readonly pinToBeChanged: boolean;
}

export interface TokenInfo {
  /** The slot id as a decimal string (CK_SLOT_ID; may change when a module re-enumerates). */
  readonly slotId: string;
  readonly label: string;
  readonly manufacturer: string;
  readonly model: string;
  readonly serial: string;
  /** CKF_TOKEN_INITIALIZED: a blank token has no keys and no PIN yet. */
  readonly initialized: boolean;
  readonly flags: TokenFlags;
  readonly modulePath: string;
}

/** Which token: any combination of serial, label and slot id; every given field must match. */
export interface TokenSelector {
  readonly serial?: string;
  readonly label?: string;
  readonly slotId?: string;
}

/** The private key a certificate belongs to. */
export interface KeyReference {
  /** CKA_ID of the key object (hex), or null when the key has none. */
  readonly id: string | null;
  readonly label: string | null;
  /** 'id': same CKA_ID as the certificate; 'publicKey': same RSA modulus / EC point. */
  readonly matchedBy: 'id' | 'publicKey';
  /**
   * 'privateKey': the private key object itself was seen. 'publicKey': only its public key object was
   * (private keys are usually CKA_PRIVATE and hidden until C_Login; pass a PIN to listCertificates to check).
   * 'unverified': nothing but the certificate is visible without login (no private key and no public key
   * object in sight); an end-entity certificate is then offered on trust, and signing (or listing with the
   * PIN) finds out. id / label are the certificate's then.
   */
  readonly evidence: 'privateKey' | 'publicKey' | 'unverified';
}

export interface TokenCertificate extends CertificateInfo {
  readonly token: TokenInfo;
  /** CKA_ID of the certificate object (hex), or null when it has none. */
  readonly certId: string | null;
  readonly label: string | null;
  readonly privateKey: KeyReference | null;
}

export interface ListCertificatesOptions {
  /** Log in first (so CKA_PRIVATE keys are visible) with this PIN; logged out again before returning. */
  readonly pin?: string;
  /** Also return certificates without a key on the token (CA certificates), with privateKey null. */
  readonly includeWithoutKey?: boolean;
}

export type { RsaMechanismChoice, SignatureMechanism } from './sign-steps.js';

export interface SignSha256Request {
  readonly token: TokenSelector;
  /** CKA_ID (hex) of the certificate whose key signs. One of certId / certFingerprint is required. */
  readonly certId?: string;
  /** SHA-256 fingerprint (hex) of the certificate whose key signs. */
  readonly certFingerprint?: string;
  /** The user PIN, for this one call. */
  readonly pin: string;
  /** The bytes to sign (e.g. DER signed attributes); hashed with SHA-256 by the token or here. */
  readonly data: Uint8Array;
  /**
   * RSA only. 'auto' (default): CKM_SHA256_RSA_PKCS when the token lists it, else CKM_RSA_PKCS over a
   * SHA-256 DigestInfo. The other values force one mechanism.
   */
  readonly rsaMechanism?: RsaMechanismChoice;
  /** The time the certificate must be valid at (default now). */
  readonly now?: Date;
}

export interface SignSha256Result {
  /** RSA: PKCS#1 v1.5 signature value. EC: DER ECDSA-Sig-Value SEQUENCE { r, s }. */
  readonly signature: Uint8Array;
  readonly mechanism: SignatureMechanism;
  readonly certificate: TokenCertificate;
}

/** A logged-in session on one token (Pkcs11Module.beginSession); end() logs out and closes it. */
export interface TokenSession {
  readonly token: TokenInfo;
  /** SHA-256 signature with the key of the certificate with this fingerprint (hex), in the logged-in session. */
  sign(request: { certFingerprint: string; data: Uint8Array; now?: Date }): Promise<SignSha256Result>;
  /** C_Logout + C_CloseSession; safe to call twice. */
  end(): Promise<void>;
}

interface LoadedLibrary {
  readonly key: string;
  readonly path: string;
  readonly pkcs11: pkcs11js.PKCS11;
  readonly queue: SerialQueue;
  refs: number;
  initialized: boolean;
  /** Open TokenSessions: reinitialize() would end them, so it waits for a later poll while any is open. */
  sessionsHeld: number;
}

const LIBRARIES = new Map<string, LoadedLibrary>();
/** Libraries whose last handle was closed and whose C_Finalize has not run yet. */
const CLOSING = new Map<string, Promise<void>>();

/** Token strings are blank padded (and NUL padded by some writers, e.g. pkcs11js C_InitToken). */
function clean(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\0' || text[end - 1] === '\t')) end--;
  return text.slice(0, end).trimStart();
}

function slotIdOf(handle: Handle): string {
  let value = 0n;
  for (let i = handle.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(handle[i]!);
  return value.toString(10);
}

function tokenFlags(flags: number): TokenFlags {
  return {
    loginRequired: (flags & pkcs11js.CKF_LOGIN_REQUIRED) !== 0,
    pinCountLow: (flags & pkcs11js.CKF_USER_PIN_COUNT_LOW) !== 0,
    pinFinalTry: (flags & pkcs11js.CKF_USER_PIN_FINAL_TRY) !== 0,
    pinLocked: (flags & pkcs11js.CKF_USER_PIN_LOCKED) !== 0,
    pinToBeChanged: (flags & pkcs11js.CKF_USER_PIN_TO_BE_CHANGED) !== 0,
  };
}

function initialize(pkcs11: pkcs11js.PKCS11): void {
  try {
    pkcs11.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    const code = ckrOf(error);
    if (code === pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) return;
    if (code === pkcs11js.CKR_CANT_LOCK) {
      try {
        pkcs11.C_Initialize();
      } catch (second) {
        if (ckrOf(second) !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw second;
      }
      return;
    }
    throw error;
  }
}

function libraryKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Object access (synchronous, inside a queue task)

interface KeyRecord {
  readonly handle: Handle;
  readonly id: Uint8Array | null;
  readonly label: string | null;
  readonly keyType: 'RSA' | 'EC' | 'other';
  readonly modulus: Uint8Array | null;
  /** Candidate encodings of CKA_EC_POINT (DER OCTET STRING unwrapped, and raw). */
  readonly ecPoints: readonly Uint8Array[];
}

interface CertRecord {
  readonly handle: Handle;
  readonly id: Uint8Array | null;
  readonly label: string | null;
  readonly info: CertificateInfo;
}

function findObjects(p: pkcs11js.PKCS11, session: Handle, template: pkcs11js.Template): Handle[] {
  p.C_FindObjectsInit(session, template);
  try {
    const out: Handle[] = [];
    for (;;) {
      const batch = p.C_FindObjects(session, 64);
      if (batch.length === 0) break;
      out.push(...batch);
    }
    return out;
  } finally {
    p.C_FindObjectsFinal(session);
  }
}

function readAttribute(p: pkcs11js.PKCS11, session: Handle, object: Handle, type: number): Buffer | null {
  try {
    const [attribute] = p.C_GetAttributeValue(session, object, [{ type }]);
    const value = attribute?.value;
    return Buffer.isBuffer(value) ? value : null;
  } catch (error) {
    const code = ckrOf(error);
    if (code === pkcs11js.CKR_ATTRIBUTE_TYPE_INVALID || code === pkcs11js.CKR_ATTRIBUTE_SENSITIVE) return null;
    throw error;
  }
}

function stripZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function equalBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a !== null && b !== null && a.length > 0 && Buffer.from(a).equals(Buffer.from(b));
}

function ecPointCandidates(value: Buffer | null): Uint8Array[] {
  if (!value || value.length === 0) return [];
  const out: Uint8Array[] = [new Uint8Array(value)];
  // Per PKCS#11, CKA_EC_POINT is a DER OCTET STRING; some modules return the raw point.
  if (value[0] === 0x04 && value.length > 2) {
    let length = value[1]!;
    let offset = 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + (value[2 + i] ?? 0);
      offset = 2 + n;
    }
    if (offset + length === value.length) out.push(new Uint8Array(value.subarray(offset)));
  }
  return out;
}

function readKeys(p: pkcs11js.PKCS11, session: Handle, objectClass: number): KeyRecord[] {
  return findObjects(p, session, [{ type: pkcs11js.CKA_CLASS, value: objectClass }]).map((handle) => {
    const id = readAttribute(p, session, handle, pkcs11js.CKA_ID);
    const label = readAttribute(p, session, handle, pkcs11js.CKA_LABEL);
    const typeBytes = readAttribute(p, session, handle, pkcs11js.CKA_KEY_TYPE);
    const type = typeBytes && typeBytes.length > 0 ? typeBytes.readUIntLE(0, Math.min(typeBytes.length, 6)) : -1;
    const keyType = type === pkcs11js.CKK_RSA ? 'RSA' : type === pkcs11js.CKK_EC ? 'EC' : 'other';
    const modulus = keyType === 'RSA' ? readAttribute(p, session, handle, pkcs11js.CKA_MODULUS) : null;
    const ecPoint = keyType === 'EC' ? readAttribute(p, session, handle, pkcs11js.CKA_EC_POINT) : null;
    return {
      handle,
      id: id && id.length > 0 ? new Uint8Array(id) : null,
      label: label ? clean(label.toString('utf8')) : null,
      keyType,
      modulus: modulus ? stripZeros(new Uint8Array(modulus)) : null,
      ecPoints: ecPointCandidates(ecPoint),
    };
  });
}

function readCertificates(p: pkcs11js.PKCS11, session: Handle): CertRecord[] {
  const handles = findObjects(p, session, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_CERTIFICATE },
    { type: pkcs11js.CKA_CERTIFICATE_TYPE, value: pkcs11js.CKC_X_509 },
  ]);
  const out: CertRecord[] = [];
  for (const handle of handles) {
    const value = readAttribute(p, session, handle, pkcs11js.CKA_VALUE);
    if (!value || value.length === 0) continue;
    let info: CertificateInfo;
    try {
      info = parseCertificate(new Uint8Array(value));
    } catch {
      continue; // not X.509 we can use (or a key type we do not sign with): not offered
    }
    const id = readAttribute(p, session, handle, pkcs11js.CKA_ID);
    const label = readAttribute(p, session, handle, pkcs11js.CKA_LABEL);
    out.push({
      handle,
      id: id && id.length > 0 ? new Uint8Array(id) : null,
      label: label ? clean(label.toString('utf8')) : null,
      info,
    });
  }
  return out;
}

function keyMaterialMatches(cert: CertificateInfo, key: KeyRecord): boolean {
  if (cert.keyType !== key.keyType) return false;
  if (cert.keyType === 'RSA') return equalBytes(cert.rsaModulus, key.modulus);
  return key.ecPoints.some((point) => equalBytes(cert.ecPoint, point));
}

/** True when the key's material is unknown or agrees with the certificate (ids can collide). */
function keyMaterialConsistent(cert: CertificateInfo, key: KeyRecord): boolean {
  if (cert.keyType !== key.keyType) return false;
  if (cert.keyType === 'RSA') return key.modulus === null || equalBytes(cert.rsaModulus, key.modulus);
  return key.ecPoints.length === 0 || keyMaterialMatches(cert, key);
}

interface KeyMatch {
  readonly key: KeyRecord;
  readonly matchedBy: 'id' | 'publicKey';
  readonly evidence: 'privateKey' | 'publicKey';
}

/**
 * Finds the key of a certificate: same CKA_ID, else same public key (RSA modulus on the private key; EC
 * point on the private key or, through a public key object with that point, the private key with the
 * public key's CKA_ID). Without a visible private key, a public key object counts as evidence.
 */
function matchKey(
  cert: CertRecord,
  privateKeys: readonly KeyRecord[],
  publicKeys: readonly KeyRecord[],
): KeyMatch | null {
  const info = cert.info;
  for (const key of privateKeys) {
    if (equalBytes(cert.id, key.id) && keyMaterialConsistent(info, key)) {
      // An EC private key carries no point: if a public key with this id disagrees, it is not the pair.
      const publicTwin = publicKeys.find((pub) => equalBytes(pub.id, key.id) && pub.keyType === key.keyType);
      if (
        publicTwin &&
        publicTwin.ecPoints.length > 0 &&
        info.keyType === 'EC' &&
        !keyMaterialMatches(info, publicTwin)
      ) {
        continue;
      }
      return { key, matchedBy: 'id', evidence: 'privateKey' };
    }
  }
  for (const key of privateKeys) {
    if (keyMaterialMatches(info, key)) return { key, matchedBy: 'publicKey', evidence: 'privateKey' };
  }
  for (const pub of publicKeys) {
    if (!keyMaterialMatches(info, pub) || pub.id === null) continue;
    const key = privateKeys.find((k) => equalBytes(k.id, pub.id) && k.keyType === pub.keyType);
    if (key) return { key, matchedBy: equalBytes(cert.id, key.id) ? 'id' : 'publicKey', evidence: 'privateKey' };
  }
  // No private key in sight (they are CKA_PRIVATE until C_Login): the public half of the pair is evidence.
  for (const pub of publicKeys) {
    if (equalBytes(cert.id, pub.id) && keyMaterialConsistent(info, pub)) {
      return { key: pub, matchedBy: 'id', evidence: 'publicKey' };
    }
  }
  for (const pub of publicKeys) {
    if (keyMaterialMatches(info, pub)) return { key: pub, matchedBy: 'publicKey', evidence: 'publicKey' };
  }
  return null;
}

function keyReference(match: KeyMatch | null): KeyReference | null {
  if (!match) return null;
  return {
    id: match.key.id ? toHex(match.key.id) : null,
    label: match.key.label,
    matchedBy: match.matchedBy,
    evidence: match.evidence,
  };
}

function normaliseHex(hex: string, what: string): string {
  const clean = hex.replace(/[\s:]/g, '').toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(clean)) throw new TypeError(`${what} must be hex: ${hex}`);
  return clean;
}

// ---------------------------------------------------------------------------------------------------------

export class Pkcs11Module {
  private closed = false;

  private constructor(private readonly library: LoadedLibrary) {}

  /** The path the module was opened with. */
  get path(): string {
    return this.library.path;
  }

  /**
   * Loads the library and calls C_Initialize (CKR_CRYPTOKI_ALREADY_INITIALIZED is fine).
   * Throws MoharError module_load_failed naming the path and the OS error (or the CKR of C_Initialize).
   */
  static async open(path: string): Promise<Pkcs11Module> {
    const key = libraryKey(path);
    // The OS shares one loaded copy: let a pending C_Finalize finish before initialising it again.
    const closing = CLOSING.get(key);
    if (closing) await closing;
    const existing = LIBRARIES.get(key);
    if (existing) {
      existing.refs += 1;
      return new Pkcs11Module(existing);
    }
    const pkcs11 = new pkcs11js.PKCS11();
    try {
      pkcs11.load(path);
    } catch (error) {
      throw translatePkcs11Error(error, { operation: 'load', modulePath: path });
    }
    try {
      initialize(pkcs11);
    } catch (error) {
      try {
        pkcs11.close();
      } catch {
        // the library is unusable anyway
      }
      const code = ckrOf(error);
      const reason = code === undefined ? error : new Error(`C_Initialize returned ${ckrName(code)}`);
      throw translatePkcs11Error(reason, { operation: 'load', modulePath: path });
    }
    const library: LoadedLibrary = {
      key,
      path,
      pkcs11,
      queue: new SerialQueue(),
      refs: 1,
      initialized: true,
      sessionsHeld: 0,
    };
    LIBRARIES.set(key, library);
    return new Pkcs11Module(library);
  }

  /** Runs token work on this library's queue (one operation at a time). */
  private run<T>(task: (p: pkcs11js.PKCS11) => Promise<T> | T): Promise<T> {
    if (this.closed) return Promise.reject(new MoharError('pkcs11_error', `PKCS#11 module ${this.path} was closed`));
    return this.library.queue.run(() => {
      if (!this.library.initialized) throw new MoharError('pkcs11_error', `PKCS#11 module ${this.path} was closed`);
      return task(this.library.pkcs11);
    });
  }

  private tokensSync(p: pkcs11js.PKCS11): { handle: Handle; token: TokenInfo }[] {
    let slots: Handle[];
    try {
      slots = p.C_GetSlotList(true);
    } catch (error) {
      throw translatePkcs11Error(error, { operation: 'C_GetSlotList', modulePath: this.path });
    }
    const out: { handle: Handle; token: TokenInfo }[] = [];
    for (const handle of slots) {
      let info: pkcs11js.TokenInfo;
      try {
        info = p.C_GetTokenInfo(handle);
      } catch {
        continue; // listed but unusable (removed meanwhile, or a module that keeps stale slots): not present
      }
      out.push({
        handle,
        token: {
          slotId: slotIdOf(handle),
          label: clean(info.label),
          manufacturer: clean(info.manufacturerID),
          model: clean(info.model),
          serial: clean(info.serialNumber),
          initialized: (info.flags & pkcs11js.CKF_TOKEN_INITIALIZED) !== 0,
          flags: tokenFlags(info.flags),
          modulePath: this.path,
        },
      });
    }
    return out;
  }

  private resolveToken(p: pkcs11js.PKCS11, selector: TokenSelector): { handle: Handle; token: TokenInfo } {
    if (selector.serial === undefined && selector.label === undefined && selector.slotId === undefined) {
      throw new TypeError('a token selector needs a serial, a label or a slot id');
    }
    const found = this.tokensSync(p).find(
      ({ token }) =>
        token.initialized &&
        (selector.serial === undefined || token.serial === selector.serial) &&
        (selector.label === undefined || token.label === selector.label) &&
        (selector.slotId === undefined || token.slotId === selector.slotId),
    );
    if (!found) {
      const wanted = [
        selector.label && `label "${selector.label}"`,
        selector.serial && `serial ${selector.serial}`,
        selector.slotId && `slot ${selector.slotId}`,
      ]
        .filter(Boolean)
        .join(', ');
      throw new MoharError('token_not_present', `no token with ${wanted} in ${this.path}: insert it and try again`, {
        extra: { ...selector, modulePath: this.path },
      });
    }
    return found;
  }

  private openSession(p: pkcs11js.PKCS11, slot: Handle, token: TokenInfo): Handle {
    try {
      return p.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
    } catch (error) {
      throw translatePkcs11Error(error, { operation: 'C_OpenSession', modulePath: this.path, token: token.label });
    }
  }

  /** C_Login as user. Returns true when this call logged in (and so must log out). */
  private login(p: pkcs11js.PKCS11, slot: Handle, session: Handle, token: TokenInfo, pin: string): boolean {
    const context = { operation: 'C_Login', modulePath: this.path, token: token.label };
    let flags: number;
    try {
      flags = p.C_GetTokenInfo(slot).flags;
    } catch (error) {
      throw translatePkcs11Error(error, { ...context, operation: 'C_GetTokenInfo' });
    }
    if ((flags & pkcs11js.CKF_USER_PIN_LOCKED) !== 0) {
      // The token says so itself; trying would only spend an attempt on a non-compliant module.
      throw translatePkcs11Error(pkcs11Failure(pkcs11js.CKR_PIN_LOCKED, 'C_Login'), { ...context, tokenFlags: flags });
    }
    if (typeof pin !== 'string' || pin.length === 0) {
      throw translatePkcs11Error(pkcs11Failure(pkcs11js.CKR_PIN_LEN_RANGE, 'C_Login'), {
        ...context,
        tokenFlags: flags,
      });
    }
    try {
      p.C_Login(session, pkcs11js.CKU_USER, pin);
      return true;
    } catch (error) {
      if (ckrOf(error) === pkcs11js.CKR_USER_ALREADY_LOGGED_IN) return false;
      let after: number | undefined;
      try {
        after = p.C_GetTokenInfo(slot).flags;
      } catch {
        after = undefined;
      }
      throw translatePkcs11Error(error, { ...context, tokenFlags: after });
    }
  }

  private endSession(p: pkcs11js.PKCS11, session: Handle, loggedIn: boolean): void {
    if (loggedIn) {
      try {
        p.C_Logout(session);
      } catch {
        // token gone or session dead: nothing left to log out of
      }
    }
    try {
      p.C_CloseSession(session);
    } catch {
      // same
    }
  }

  /** Tokens present in the module's slots (slots whose token cannot be read are left out). */
  listTokens(): Promise<TokenInfo[]> {
    return this.run((p) => this.tokensSync(p).map((t) => t.token));
  }

  /**
   * Re-enumerates tokens: C_Finalize + C_Initialize. For modules that only discover tokens in C_Initialize
   * (SoftHSM 2.6; some vendor modules). Safe between operations (no session outlives a call here), but it
   * also ends sessions that other code in this process holds on the same library.
   */
  reinitialize(): Promise<void> {
    return this.run((p) => {
      if (this.library.sessionsHeld > 0) return; // C_Finalize would end a batch's logged-in session
      try {
        p.C_Finalize();
      } catch (error) {
        if (ckrOf(error) !== pkcs11js.CKR_CRYPTOKI_NOT_INITIALIZED) {
          throw translatePkcs11Error(error, { operation: 'C_Finalize', modulePath: this.path });
        }
      }
      try {
        initialize(p);
      } catch (error) {
        this.library.initialized = false;
        throw translatePkcs11Error(error, { operation: 'C_Initialize', modulePath: this.path });
      }
    });
  }

  /** The certificates on one token that have a matching key (see ListCertificatesOptions). */
  listCertificates(selector: TokenSelector, options: ListCertificatesOptions = {}): Promise<TokenCertificate[]> {
    return this.run(async (p) => {
      const { handle: slot, token } = this.resolveToken(p, selector);
      const session = this.openSession(p, slot, token);
      let loggedIn = false;
      try {
        if (options.pin !== undefined) {
          loggedIn = this.login(p, slot, session, token, options.pin);
          await nextTurn();
        }
        const { certs, privateKeys, publicKeys } = this.readObjects(p, session, token);
        // Without login and without any private key in sight, the keys are hidden rather than absent.
        const keysHidden = !loggedIn && options.pin === undefined && privateKeys.length === 0;
        const out: TokenCertificate[] = [];
        for (const cert of certs) {
          let privateKey = keyReference(matchKey(cert, privateKeys, publicKeys));
          if (!privateKey && keysHidden && !cert.info.isCa) {
            privateKey = {
              id: cert.id ? toHex(cert.id) : null,
              label: cert.label,
              matchedBy: 'id',
              evidence: 'unverified',
            };
          }
          if (!privateKey && !options.includeWithoutKey) continue;
          out.push({ ...cert.info, token, certId: cert.id ? toHex(cert.id) : null, label: cert.label, privateKey });
        }
        return out;
      } finally {
        this.endSession(p, session, loggedIn);
      }
    });
  }

  private readObjects(
    p: pkcs11js.PKCS11,
    session: Handle,
    token: TokenInfo,
  ): { certs: CertRecord[]; privateKeys: KeyRecord[]; publicKeys: KeyRecord[] } {
    try {
      return {
        certs: readCertificates(p, session),
        privateKeys: readKeys(p, session, pkcs11js.CKO_PRIVATE_KEY),
        publicKeys: readKeys(p, session, pkcs11js.CKO_PUBLIC_KEY),
      };
    } catch (error) {
      throw translatePkcs11Error(error, { operation: 'C_FindObjects', modulePath: this.path, token: token.label });
    }
  }

  /**
   * Signs `data` with SHA-256 using the key of the chosen certificate. Order: find the token and the
   * certificate (no login), refuse a certificate outside its validity (certificate_expired), C_Login with
   * `pin` (CKR_USER_ALREADY_LOGGED_IN tolerated), find the private key, choose the mechanism from
   * C_GetMechanismList, C_SignInit + C_SignAsync, check the signature against the certificate, log out,
   * close the session. Errors: token_not_present, key_not_found, certificate_expired, pin_incorrect
   * (extra pinCountLow / pinFinalTry), pin_locked, pin_expired, mechanism_not_supported, token_removed,
   * pkcs11_error.
   */
  signSha256(request: SignSha256Request): Promise<SignSha256Result> {
    const certId = request.certId === undefined ? undefined : normaliseHex(request.certId, 'certId');
    const fingerprint =
      request.certFingerprint === undefined ? undefined : normaliseHex(request.certFingerprint, 'certFingerprint');
    if (certId === undefined && fingerprint === undefined) {
      return Promise.reject(new TypeError('signSha256 needs certId or certFingerprint'));
    }
    const data = new Uint8Array(request.data);
    const now = request.now ?? new Date();
    const choice = request.rsaMechanism ?? 'auto';

    return this.run(async (p) => {
      const { handle: slot, token } = this.resolveToken(p, request.token);
      const context = (operation: string) => ({ operation, modulePath: this.path, token: token.label });
      const session = this.openSession(p, slot, token);
      let loggedIn = false;
      try {
        const cert = pickCertificate(
          this.readObjects(p, session, token).certs,
          { certId, fingerprint },
          token.label,
          now,
        );
        // CKA_PRIVATE keys are only visible after C_Login.
        loggedIn = this.login(p, slot, session, token, request.pin);
        await nextTurn();
        const { key, certificate } = this.privateKeyOf(p, session, token, cert);
        const input = chooseMechanism(
          this.mechanismsOf(p, slot, context),
          cert.info.keyType,
          choice,
          token.label,
          data,
        );
        const signature = await signOnToken(p, session, key.handle, input, context);
        assertKeyBelongsToCertificate(cert.info, data, signature, {
          certId: certificate.certId,
          keyId: certificate.privateKey?.id ?? null,
          token: token.label,
        });
        return { signature, mechanism: input.mechanism, certificate };
      } finally {
        this.endSession(p, session, loggedIn);
      }
    });
  }

  /**
   * One logged-in session for several signatures (a batch): C_OpenSession + C_Login once, then sign() as often
   * as needed, then end() (C_Logout + C_CloseSession). Every step is its own queue task, so token polls still
   * run between signatures. Login errors are those of signSha256 (pin_incorrect with the token flags,
   * pin_locked, token_not_present); nothing is left open when beginSession fails.
   */
  beginSession(selector: TokenSelector, pin: string): Promise<TokenSession> {
    return this.run(async (p) => {
      const { handle: slot, token } = this.resolveToken(p, selector);
      const session = this.openSession(p, slot, token);
      let loggedIn = false;
      try {
        loggedIn = this.login(p, slot, session, token, pin);
      } catch (error) {
        this.endSession(p, session, false);
        throw error;
      }
      this.library.sessionsHeld += 1;
      return this.tokenSession(slot, session, token, loggedIn);
    });
  }

  private tokenSession(slot: Handle, session: Handle, token: TokenInfo, loggedIn: boolean): TokenSession {
    let ended = false;
    const context = (operation: string) => ({ operation, modulePath: this.path, token: token.label });
    return {
      token,
      sign: (request) => {
        const fingerprint = normaliseHex(request.certFingerprint, 'certFingerprint');
        const data = new Uint8Array(request.data);
        return this.run(async (p) => {
          if (ended) throw new MoharError('pkcs11_error', 'the token session has ended');
          const cert = pickCertificate(
            this.readObjects(p, session, token).certs,
            { certId: undefined, fingerprint },
            token.label,
            request.now ?? new Date(),
          );
          const { key, certificate } = this.privateKeyOf(p, session, token, cert);
          const input = chooseMechanism(
            this.mechanismsOf(p, slot, context),
            cert.info.keyType,
            'auto',
            token.label,
            data,
          );
          const signature = await signOnToken(p, session, key.handle, input, context);
          assertKeyBelongsToCertificate(cert.info, data, signature, {
            certId: certificate.certId,
            keyId: certificate.privateKey?.id ?? null,
            token: token.label,
          });
          return { signature, mechanism: input.mechanism, certificate };
        });
      },
      end: () => {
        if (ended) return Promise.resolve();
        ended = true;
        // Queued even after close(): the logout must happen whatever else failed.
        return this.library.queue.run(() => {
          this.library.sessionsHeld -= 1;
          if (this.library.initialized) this.endSession(this.library.pkcs11, session, loggedIn);
        });
      },
    };
  }

  /**
   * The private key of the certificate, seen after login (key_not_found when there is none), and the certificate as
   * listed.
   */
  private privateKeyOf(
    p: pkcs11js.PKCS11,
    session: Handle,
    token: TokenInfo,
    cert: CertRecord,
  ): { key: KeyRecord; certificate: TokenCertificate } {
    const after = this.readObjects(p, session, token);
    const match = matchKey(cert, after.privateKeys, after.publicKeys);
    if (!match || match.evidence !== 'privateKey') {
      throw new MoharError(
        'key_not_found',
        `no private key for the certificate of ${cert.info.subjectCommonName ?? cert.info.subject} on token "${token.label}"`,
        {
          extra: { certId: cert.id ? toHex(cert.id) : null, token: token.label },
        },
      );
    }
    return {
      key: match.key,
      certificate: {
        ...cert.info,
        token,
        certId: cert.id ? toHex(cert.id) : null,
        label: cert.label,
        privateKey: keyReference(match),
      },
    };
  }

  private mechanismsOf(p: pkcs11js.PKCS11, slot: Handle, context: (operation: string) => Pkcs11ErrorContext): number[] {
    try {
      return p.C_GetMechanismList(slot);
    } catch (error) {
      throw translatePkcs11Error(error, context('C_GetMechanismList'));
    }
  }

  /**
   * Releases this handle. The library is finalised and unloaded when the last handle on it is closed
   * (after the work already queued).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const library = this.library;
    library.refs -= 1;
    if (library.refs > 0) return;
    LIBRARIES.delete(library.key);
    const finalized = library.queue.run(() => {
      library.initialized = false;
      try {
        library.pkcs11.C_Finalize();
      } catch {
        // already finalised
      }
      try {
        library.pkcs11.close();
      } catch {
        // nothing more to release
      }
    });
    CLOSING.set(library.key, finalized);
    try {
      await finalized;
    } finally {
      if (CLOSING.get(library.key) === finalized) CLOSING.delete(library.key);
    }
  }
}

export interface ModuleLoadFailure {
  readonly path: string;
  /** MoharError module_load_failed (message names the path and the OS error). */
  readonly error: MoharError;
}

/** Opens every path; the ones that fail are reported and the others still work. */
export async function openModules(
  paths: readonly string[],
): Promise<{ modules: Pkcs11Module[]; failures: ModuleLoadFailure[] }> {
  const modules: Pkcs11Module[] = [];
  const failures: ModuleLoadFailure[] = [];
  for (const path of paths) {
    try {
      modules.push(await Pkcs11Module.open(path));
    } catch (error) {
      failures.push({ path, error: translatePkcs11Error(error, { operation: 'load', modulePath: path }) });
    }
  }
  return { modules, failures };
}
