/**
 * native/ tokens and certificates as the bridge shows them (common/desktop-bridge.ts): plain JSON, an
 * opaque slot id that names module + token, and for every certificate whether it can sign and why not.
 *
 * The class comes from native's ccaClassOf: a certificate policy under the CCA India arc
 * 2.16.356.100.2 — .1 "Class 1", .2 "Class 2", .3 "Class 3"; any other OID under the arc is shown as
 * "CCA India policy <oid>"; no such policy: null.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { TokenCertificate, TokenInfo } from '../../common/desktop-bridge.js';
import {
  KNOWN_MODULES,
  tokenKey,
  type TokenCertificate as NativeCertificate,
  type TokenInfo as NativeToken,
} from '../../native/index.js';

/** The product name of a known vendor module ("ePass2003"), else the file name without "lib" and extension. */
export function moduleDisplayName(modulePath: string, names: Readonly<Record<string, string>> = {}): string {
  const given = names[modulePath];
  if (given) return given;
  const file = basename(modulePath.replace(/\\/g, '/')).toLowerCase();
  for (const known of Object.values(KNOWN_MODULES).flat()) {
    if (basename(known.path.replace(/\\/g, '/')).toLowerCase() === file) return known.product;
  }
  return file.replace(/^lib/, '').replace(/\.(so|dll|dylib)(\.[\d.]+)?$/, '');
}

/**
 * Opaque and stable while the token is inserted (also across a re-insertion into another port): the
 * module path and the token's manufacturer + model + serial, hashed, so two modules never collide.
 */
export function bridgeSlotId(token: NativeToken): string {
  return createHash('sha256')
    .update(`${token.modulePath}\u0000${tokenKey(token)}`)
    .digest('hex')
    .slice(0, 24);
}

const FINGERPRINT_ID = 'sha256:';

/**
 * The certificate's CKA_ID (hex) when it names exactly one certificate on the token; otherwise (no CKA_ID,
 * or a renewal sharing its id) "sha256:<fingerprint>", which always names exactly one.
 */
export function bridgeCertificateId(cert: NativeCertificate, all: readonly NativeCertificate[]): string {
  if (cert.certId !== null && all.filter((c) => c.certId === cert.certId).length === 1) return cert.certId;
  return `${FINGERPRINT_ID}${cert.fingerprintSha256}`;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Why a certificate cannot sign now, in plain words (empty: it can). Same rules as the server's upload check. */
export function certificateProblems(cert: NativeCertificate, now: Date): string[] {
  const problems: string[] = [];
  if (now.getTime() > cert.notAfter.getTime()) problems.push(`The certificate expired on ${day(cert.notAfter)}.`);
  if (now.getTime() < cert.notBefore.getTime()) {
    problems.push(`The certificate is not valid before ${day(cert.notBefore)}.`);
  }
  if (cert.privateKey === null) problems.push('The token holds no private key for this certificate.');
  if (
    cert.keyUsage !== null &&
    !cert.keyUsage.includes('digitalSignature') &&
    !cert.keyUsage.includes('nonRepudiation')
  ) {
    problems.push(
      'The certificate is not meant for signing (its key usage allows neither digital signatures nor non-repudiation).',
    );
  }
  return problems;
}

/** The signer certificates of one token (CA certificates left out), as the bridge shows them. */
export function bridgeCertificates(
  all: readonly NativeCertificate[],
  now: Date,
): { view: TokenCertificate; native: NativeCertificate }[] {
  return all
    .filter((cert) => !cert.isCa)
    .map((cert) => {
      const problems = certificateProblems(cert, now);
      const view: TokenCertificate = {
        id: bridgeCertificateId(cert, all),
        label: cert.label ?? '',
        subject: cert.subject,
        commonName: cert.subjectCommonName ?? '',
        issuer: cert.issuer,
        serialNumber: cert.serialNumber,
        notBefore: cert.notBefore.toISOString(),
        notAfter: cert.notAfter.toISOString(),
        keyAlgorithm: cert.keyType,
        certificateClass: cert.ccaClass?.name ?? null,
        usableForSigning: problems.length === 0,
        problems,
      };
      return { view, native: cert };
    });
}

export function bridgeToken(
  token: NativeToken,
  certificates: readonly TokenCertificate[],
  moduleName: string,
): TokenInfo {
  return {
    slotId: bridgeSlotId(token),
    label: token.label,
    manufacturer: token.manufacturer,
    model: token.model,
    serialNumber: token.serial,
    moduleName,
    pinLocked: token.flags.pinLocked,
    pinFinalTry: token.flags.pinFinalTry,
    certificates: [...certificates],
  };
}
