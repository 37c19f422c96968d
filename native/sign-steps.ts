/**
 * The stages of Pkcs11Module.signSha256 that need no session of their own: which certificate, which
 * mechanism over which input, the C_Sign itself, and the check that the key was the certificate's.
 */
import { createHash, constants as cryptoConstants, verify as cryptoVerify, X509Certificate } from 'node:crypto';
import pkcs11js from 'pkcs11js';
import { MoharError } from '../common/errors.js';
import { ecdsaRawToDer, sha256DigestInfo } from './der.js';
import { translatePkcs11Error, type Pkcs11ErrorContext } from './errors.js';
import { assertCertificateValid, toHex, type CertificateInfo } from './x509.js';

export type RsaMechanismChoice = 'auto' | 'CKM_SHA256_RSA_PKCS' | 'CKM_RSA_PKCS';
export type SignatureMechanism = 'CKM_SHA256_RSA_PKCS' | 'CKM_RSA_PKCS' | 'CKM_ECDSA';

/** The certificate to sign for, as wanted by CKA_ID and/or fingerprint (hex, normalised). */
export interface WantedCertificate {
  readonly certId: string | undefined;
  readonly fingerprint: string | undefined;
}

/**
 * The wanted certificate among the token's (public objects, no login needed), valid at `now`:
 * key_not_found when none matches, certificate_expired when it is outside its validity.
 */
export function pickCertificate<T extends { readonly id: Uint8Array | null; readonly info: CertificateInfo }>(
  certs: readonly T[],
  wanted: WantedCertificate,
  tokenLabel: string,
  now: Date,
): T {
  const { certId, fingerprint } = wanted;
  const candidates = certs.filter(
    (c) =>
      (certId === undefined || (c.id !== null && toHex(c.id) === certId)) &&
      (fingerprint === undefined || c.info.fingerprintSha256 === fingerprint),
  );
  if (candidates.length === 0) {
    throw new MoharError(
      'key_not_found',
      `no certificate with ${certId !== undefined ? `CKA_ID ${certId}` : `fingerprint ${fingerprint}`} on token "${tokenLabel}"`,
      {
        extra: { certId: certId ?? null, certFingerprint: fingerprint ?? null, token: tokenLabel },
      },
    );
  }
  // Several certificates under one id (a renewal): prefer the valid one with the latest notAfter.
  const valid = candidates
    .filter((c) => c.info.notBefore <= now && now <= c.info.notAfter)
    .sort((a, b) => b.info.notAfter.getTime() - a.info.notAfter.getTime());
  const cert = valid[0] ?? candidates[0]!;
  assertCertificateValid(cert.info, now);
  return cert;
}

export interface SigningInput {
  readonly mechanism: SignatureMechanism;
  /**
   * What C_Sign gets: the data itself (CKM_SHA256_RSA_PKCS), a SHA-256 DigestInfo (CKM_RSA_PKCS) or the hash
   * (CKM_ECDSA).
   */
  readonly input: Buffer;
}

/** The mechanism for this key among those the token offers (mechanism_not_supported when none fits), and its input. */
export function chooseMechanism(
  offered: readonly number[],
  keyType: CertificateInfo['keyType'],
  choice: RsaMechanismChoice,
  tokenLabel: string,
  data: Uint8Array,
): SigningInput {
  const hash = createHash('sha256').update(data).digest();
  if (keyType === 'RSA') {
    const hasSha256 = offered.includes(pkcs11js.CKM_SHA256_RSA_PKCS);
    const hasRaw = offered.includes(pkcs11js.CKM_RSA_PKCS);
    if (choice === 'CKM_SHA256_RSA_PKCS' || (choice === 'auto' && hasSha256)) {
      if (!hasSha256) {
        throw new MoharError('mechanism_not_supported', `token "${tokenLabel}" does not offer CKM_SHA256_RSA_PKCS`, {
          extra: { mechanism: 'CKM_SHA256_RSA_PKCS' },
        });
      }
      return { mechanism: 'CKM_SHA256_RSA_PKCS', input: Buffer.from(data) };
    }
    if (!hasRaw) {
      throw new MoharError(
        'mechanism_not_supported',
        `token "${tokenLabel}" offers neither CKM_SHA256_RSA_PKCS nor CKM_RSA_PKCS`,
        { extra: { mechanism: 'CKM_RSA_PKCS' } },
      );
    }
    return { mechanism: 'CKM_RSA_PKCS', input: Buffer.from(sha256DigestInfo(hash)) };
  }
  if (!offered.includes(pkcs11js.CKM_ECDSA)) {
    throw new MoharError('mechanism_not_supported', `token "${tokenLabel}" does not offer CKM_ECDSA`, {
      extra: { mechanism: 'CKM_ECDSA' },
    });
  }
  return { mechanism: 'CKM_ECDSA', input: hash };
}

/** C_SignInit + C_SignAsync (off the main thread); an ECDSA result becomes a DER ECDSA-Sig-Value. */
export async function signOnToken(
  p: pkcs11js.PKCS11,
  session: pkcs11js.Handle,
  key: pkcs11js.Handle,
  { mechanism, input }: SigningInput,
  context: (operation: string) => Pkcs11ErrorContext,
): Promise<Uint8Array> {
  try {
    p.C_SignInit(session, { mechanism: pkcs11js[mechanism] }, key);
  } catch (error) {
    throw translatePkcs11Error(error, context('C_SignInit'));
  }
  let raw: Buffer;
  try {
    raw = await p.C_SignAsync(session, input, Buffer.alloc(1024));
  } catch (error) {
    throw translatePkcs11Error(error, context('C_Sign'));
  }
  return mechanism === 'CKM_ECDSA' ? ecdsaRawToDer(new Uint8Array(raw)) : new Uint8Array(raw);
}

/** Which certificate and key signed, as a key_not_found error names them. */
export interface SignedBy {
  readonly certId: string | null;
  readonly keyId: string | null;
  readonly token: string;
}

/** The signature must verify with the certificate, or the key was not the certificate's (key_not_found). */
export function assertKeyBelongsToCertificate(
  certificate: CertificateInfo,
  data: Uint8Array,
  signature: Uint8Array,
  signedBy: SignedBy,
): void {
  const publicKey = new X509Certificate(certificate.der).publicKey;
  const ok =
    certificate.keyType === 'RSA'
      ? cryptoVerify('sha256', data, { key: publicKey, padding: cryptoConstants.RSA_PKCS1_PADDING }, signature)
      : cryptoVerify('sha256', data, publicKey, signature);
  if (!ok) {
    throw new MoharError(
      'key_not_found',
      `the key used for ${certificate.subjectCommonName ?? certificate.subject} does not belong to its certificate (the signature does not verify)`,
      {
        extra: { certId: signedBy.certId, keyId: signedBy.keyId, token: signedBy.token },
      },
    );
  }
}
