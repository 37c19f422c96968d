/**
 * Certificate path building and judging (RFC 5280, the parts a document signature needs), pure: over DER
 * bytes, no I/O. The caller supplies the candidate certificates (from the CMS, from AIA caIssuers) and the
 * trust anchors; fetching and revocation live with the caller (server/domain/trust/). What is judged here:
 * each signature in the path, validity of every certificate (anchors included: an expired root may explain
 * an old chain, never make a later signature trusted) at the signing time, CA basic constraints and
 * keyCertSign of issuers, path length limits, and the signer's key usage.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { equalBytes, toArrayBuffer } from './der.js';
import { certInfo, isIssuedBy, isSelfSigned, type CertInfo } from './x509.js';

export type PathProblem = 'unknown_issuer' | 'expired' | 'not_yet_valid' | 'not_for_signing' | 'bad_ca';

export interface CertificatePath {
  /** Signer first; the anchor last when `anchored`. As far as it could be built otherwise. */
  readonly path: CertInfo[];
  /** The path ends in one of the trust anchors. */
  readonly anchored: boolean;
  /** The last certificate of an unanchored path (whose issuer is missing), for the caller's AIA fetch. */
  readonly missingIssuerOf: CertInfo | null;
}

export interface PathJudgement {
  /** null: the path is sound at `at`. Otherwise the first problem, in this order of precedence. */
  readonly problem: PathProblem | null;
  readonly problems: string[];
}

const MAX_DEPTH = 8;
const KU_DIGITAL_SIGNATURE = 0x80;
const KU_NON_REPUDIATION = 0x40;
const KU_KEY_CERT_SIGN = 0x04;

function sameCertificate(a: CertInfo, b: CertInfo): boolean {
  return equalBytes(a.der, b.der);
}

/**
 * Builds a path from `leaf` up to a trust anchor through `pool`. An anchor is reached when the current
 * certificate is an anchor, or is issued by one (checked by signature). Anchors are preferred over pool
 * certificates at each step, so a cross-certificate in the CMS does not hide a configured anchor.
 */
export function buildCertificatePath(
  leaf: Uint8Array,
  pool: readonly Uint8Array[],
  anchors: readonly Uint8Array[],
): CertificatePath {
  const anchorInfos = anchors.map((a) => certInfo(a));
  // Candidates come from untrusted places (the CMS, caIssuers answers): unreadable ones are skipped.
  const poolInfos = pool.flatMap((p) => {
    try {
      return [certInfo(p)];
    } catch {
      return [];
    }
  });
  const path: CertInfo[] = [certInfo(leaf)];
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const current = path.at(-1)!;
    if (anchorInfos.some((a) => sameCertificate(a, current))) return { path, anchored: true, missingIssuerOf: null };
    const anchor = anchorInfos.find((a) => isIssuedBy(current, a));
    if (anchor) return { path: [...path, anchor], anchored: true, missingIssuerOf: null };
    if (isSelfSigned(current)) return { path, anchored: false, missingIssuerOf: null };
    const issuer = poolInfos.find((c) => !path.some((p) => sameCertificate(p, c)) && isIssuedBy(current, c));
    if (!issuer) return { path, anchored: false, missingIssuerOf: current };
    path.push(issuer);
  }
  return { path, anchored: false, missingIssuerOf: null };
}

/** The first byte of the keyUsage BIT STRING (null: no keyUsage extension). */
export function keyUsageBits(cert: CertInfo): number | null {
  const ext = cert.cert.extensions?.find((e) => e.extnID === '2.5.29.15');
  if (!ext) return null;
  const parsed = asn1js.fromBER(toArrayBuffer(ext.extnValue.valueBlock.valueHexView)).result;
  if (!(parsed instanceof asn1js.BitString)) return 0;
  return new Uint8Array(parsed.valueBlock.valueHexView)[0] ?? 0;
}

/** keyUsage allows signing documents: digitalSignature or nonRepudiation (no extension: any use). */
export function keyUsageAllowsSigning(cert: CertInfo): boolean {
  const bits = keyUsageBits(cert);
  return bits === null || (bits & (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION)) !== 0;
}

function basicConstraints(cert: CertInfo): { ca: boolean; pathLen: number | null } | null {
  const ext = cert.cert.extensions?.find((e) => e.extnID === '2.5.29.19');
  if (!ext) return null;
  try {
    const bc = pkijs.BasicConstraints.fromBER(toArrayBuffer(ext.extnValue.valueBlock.valueHexView));
    const len = bc.pathLenConstraint;
    return {
      ca: bc.cA === true,
      pathLen: typeof len === 'number' ? len : len instanceof asn1js.Integer ? len.valueBlock.valueDec : null,
    };
  } catch {
    return { ca: false, pathLen: null };
  }
}

/** Where `at` falls in the certificate's validity: before notBefore, within, or after notAfter. */
function validityAt(cert: CertInfo, at: Date): 'not_yet_valid' | 'valid' | 'expired' {
  if (at.getTime() < Date.parse(cert.x509.validFrom)) return 'not_yet_valid';
  return at.getTime() > Date.parse(cert.x509.validTo) ? 'expired' : 'valid';
}

/** Judges a built path at time `at` (the signing time the caller trusts). */
export function judgeCertificatePath(built: CertificatePath, at: Date): PathJudgement {
  const problems: string[] = [];
  let problem: PathProblem | null = null;
  const note = (kind: PathProblem, text: string): void => {
    problem ??= kind;
    problems.push(text);
  };
  if (!built.anchored) {
    const top = built.path.at(-1)!;
    note(
      'unknown_issuer',
      isSelfSigned(top)
        ? `${top.subject} is self-signed and not a trust anchor`
        : `no path from ${top.subject} to a trust anchor (issuer ${top.x509.issuer.replace(/\n/g, ', ')} not found)`,
    );
  }
  for (const cert of built.path) {
    const validity = validityAt(cert, at);
    if (validity !== 'valid') {
      note(
        validity,
        `${cert.subject} is not valid at ${at.toISOString()} (${validity === 'expired' ? 'expired' : 'not yet valid'}: valid ${new Date(cert.x509.validFrom).toISOString()} to ${new Date(cert.x509.validTo).toISOString()})`,
      );
    }
  }
  // Issuers: every certificate above the signer must be a CA allowed to sign certificates, within pathLen.
  built.path.slice(1).forEach((issuer, index) => {
    const bc = basicConstraints(issuer);
    if (!bc?.ca) note('bad_ca', `${issuer.subject} is not a CA certificate (basicConstraints)`);
    const ku = keyUsageBits(issuer);
    if (ku !== null && (ku & KU_KEY_CERT_SIGN) === 0) {
      note('bad_ca', `${issuer.subject} may not sign certificates (keyUsage lacks keyCertSign)`);
    }
    // CA certificates below this issuer, excluding the signer: index counts them.
    if (bc?.pathLen !== null && bc?.pathLen !== undefined && index > bc.pathLen) {
      note('bad_ca', `${issuer.subject} allows ${bc.pathLen} CA certificate(s) below it; the path has ${index}`);
    }
  });
  const signer = built.path[0]!;
  if (!keyUsageAllowsSigning(signer)) {
    note(
      'not_for_signing',
      `${signer.subject} is not for signing (keyUsage has neither digitalSignature nor nonRepudiation)`,
    );
  }
  return { problem, problems };
}
