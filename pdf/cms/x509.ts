/**
 * Certificate helpers shared by the CMS builder, the timestamp and OCSP checks and the inspector.
 * Raw fields (issuer, subject, serial, SPKI) are cut out of the original DER so that nothing is
 * re-encoded; pkijs is used for the extensions and node:crypto for keys and signature checks.
 *
 * The one certificate reader of pdf/ and server/: the server reads names, e-mails and policies through it
 * (subjectValues, policyOids) rather than by hand. native/x509.ts keeps a reader of its own because
 * eslint.config.js forbids native/ -> pdf/ (and pdf/ -> native/), and the token UI needs what this one does
 * not (RFC 4514 names, the key material PKCS#11 objects are matched by).
 */
import { X509Certificate, createHash, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MoharError, type ErrorCode } from '../../common/errors.js';
import { childrenOf, readTlv, toArrayBuffer, toHex } from './der.js';
import { OID, newHash } from './oids.js';

export interface CertInfo {
  readonly der: Uint8Array;
  readonly cert: pkijs.Certificate;
  readonly x509: X509Certificate;
  readonly publicKey: KeyObject;
  /** DER of the issuer Name, as in the certificate. */
  readonly issuerDer: Uint8Array;
  readonly subjectDer: Uint8Array;
  /** Content octets of the serialNumber INTEGER. */
  readonly serial: Uint8Array;
  readonly serialHex: string;
  /** DER of SubjectPublicKeyInfo. */
  readonly spkiDer: Uint8Array;
  /** The subjectPublicKey BIT STRING contents without the unused-bits octet (hashed in OCSP CertIDs). */
  readonly publicKeyBits: Uint8Array;
  readonly subject: string;
}

const cache = new WeakMap<Uint8Array, CertInfo>();

/** Parses a DER certificate; malformed input → MoharError(code). */
export function certInfo(der: Uint8Array, code: ErrorCode = 'invalid_signature_data'): CertInfo {
  const hit = cache.get(der);
  if (hit) return hit;
  let info: CertInfo;
  try {
    const top = readTlv(der, 0, code);
    const [tbs] = childrenOf(der, top, code);
    if (!tbs) throw new Error('empty certificate');
    const fields = childrenOf(der, tbs, code);
    const base = fields[0]?.tag === 0xa0 ? 1 : 0;
    const serial = fields[base];
    const issuer = fields[base + 2];
    const subject = fields[base + 4];
    const spki = fields[base + 5];
    if (!serial || serial.tag !== 0x02 || !issuer || !subject || !spki) throw new Error('incomplete TBSCertificate');
    const spkiFields = childrenOf(der, spki, code);
    const bits = spkiFields[1];
    if (!bits || bits.tag !== 0x03) throw new Error('bad SubjectPublicKeyInfo');
    const exact = der.subarray(0, top.end);
    const x509 = new X509Certificate(exact);
    const serialBytes = der.slice(serial.contentStart, serial.end);
    info = {
      der: exact,
      cert: pkijs.Certificate.fromBER(toArrayBuffer(exact)),
      x509,
      publicKey: x509.publicKey,
      issuerDer: der.slice(issuer.start, issuer.end),
      subjectDer: der.slice(subject.start, subject.end),
      serial: serialBytes,
      serialHex: toHex(serialBytes),
      spkiDer: der.slice(spki.start, spki.end),
      publicKeyBits: der.slice(bits.contentStart + 1, bits.end),
      subject: x509.subject.replace(/\n/g, ', '),
    };
  } catch (e) {
    if (e instanceof MoharError) throw e;
    throw new MoharError(code, `malformed certificate: ${(e as Error).message}`, { cause: e });
  }
  cache.set(der, info);
  return info;
}

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

export function digest(algorithm: string, data: Uint8Array): Uint8Array {
  return new Uint8Array(newHash(algorithm).update(data).digest());
}

/** True when `child` names `issuer` as its issuer and its signature verifies with the issuer's key. */
export function isIssuedBy(child: CertInfo, issuer: CertInfo): boolean {
  try {
    return child.x509.checkIssued(issuer.x509) && child.x509.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

export function isSelfSigned(cert: CertInfo): boolean {
  return isIssuedBy(cert, cert);
}

/**
 * The values of one attribute of the subject (CN, emailAddress, ST, …), as node:crypto names them, in the
 * certificate's order: what the server reads to bind a certificate to a person and to summarise it.
 */
export function subjectValues(cert: CertInfo, key: string): string[] {
  return cert.x509.subject.split('\n').flatMap((line) => {
    const at = line.indexOf('=');
    return at > 0 && line.slice(0, at).trim() === key ? [line.slice(at + 1).trim()] : [];
  });
}

/** The policy identifiers of the certificatePolicies extension, in order (empty when absent or unreadable). */
export function policyOids(cert: CertInfo): string[] {
  const ext = extension(cert, '2.5.29.32');
  if (!ext) return [];
  const parsed = asn1js.fromBER(extensionValue(ext));
  if (!(parsed.result instanceof asn1js.Sequence)) return [];
  return parsed.result.valueBlock.value.flatMap((policy) => {
    const oid = policy instanceof asn1js.Sequence ? policy.valueBlock.value[0] : undefined;
    return oid instanceof asn1js.ObjectIdentifier ? [oid.valueBlock.toString()] : [];
  });
}

function extension(cert: CertInfo, id: string): pkijs.Extension | undefined {
  return cert.cert.extensions?.find((e) => e.extnID === id);
}

function extensionValue(ext: pkijs.Extension): ArrayBuffer {
  return toArrayBuffer(ext.extnValue.valueBlock.valueHexView);
}

/** Extended key usage purposes and whether the extension is critical (null when absent). */
export function extendedKeyUsage(cert: CertInfo): { purposes: string[]; critical: boolean } | null {
  const ext = extension(cert, OID.extKeyUsage);
  if (!ext) return null;
  const eku = pkijs.ExtKeyUsage.fromBER(extensionValue(ext));
  return { purposes: [...eku.keyPurposes], critical: ext.critical };
}

export function hasExtension(cert: CertInfo, id: string): boolean {
  return extension(cert, id) !== undefined;
}

function uriOf(name: pkijs.GeneralName): string | null {
  return name.type === 6 && typeof name.value === 'string' ? name.value : null;
}

/** AIA URLs of the given access method (OCSP or caIssuers); http(s) only. */
export function accessUrls(cert: CertInfo, method: string): string[] {
  const ext = extension(cert, OID.authorityInfoAccess);
  if (!ext) return [];
  try {
    const aia = pkijs.InfoAccess.fromBER(extensionValue(ext));
    return aia.accessDescriptions
      .filter((d) => d.accessMethod === method)
      .map((d) => uriOf(d.accessLocation))
      .filter((u): u is string => u !== null && /^https?:\/\//i.test(u));
  } catch {
    return [];
  }
}

/** CRL distribution point URLs (fullName URIs); http(s) only. */
export function crlUrls(cert: CertInfo): string[] {
  const ext = extension(cert, OID.crlDistributionPoints);
  if (!ext) return [];
  try {
    const dps = pkijs.CRLDistributionPoints.fromBER(extensionValue(ext));
    const out: string[] = [];
    for (const dp of dps.distributionPoints) {
      const name = dp.distributionPoint;
      if (!Array.isArray(name)) continue;
      for (const gn of name) {
        const u = uriOf(gn);
        if (u && /^https?:\/\//i.test(u)) out.push(u);
      }
    }
    return out;
  } catch {
    return [];
  }
}

/** Parses a DER object with a pkijs class, turning any failure into MoharError(code). */
export function parsePkijs<T>(
  cls: { new (params: { schema: asn1js.AsnType }): T },
  der: Uint8Array,
  what: string,
  code: ErrorCode,
): T {
  const asn1 = asn1js.fromBER(toArrayBuffer(der));
  if (asn1.offset === -1) throw new MoharError(code, `malformed ${what}: ${asn1.result.error || 'not BER'}`);
  try {
    return new cls({ schema: asn1.result });
  } catch (e) {
    throw new MoharError(code, `malformed ${what}: ${(e as Error).message}`, { cause: e });
  }
}

/** Finds, among `certs`, the one a CMS SignerIdentifier points at. */
export function findBySignerId(
  certs: readonly CertInfo[],
  sid: pkijs.IssuerAndSerialNumber | asn1js.OctetString | undefined,
): CertInfo | undefined {
  if (!sid) return undefined;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const serial = toHex(new Uint8Array(sid.serialNumber.valueBlock.valueHexView));
    return certs.find((c) => c.serialHex === serial && sid.issuer.isEqual(c.cert.issuer));
  }
  const ski = toHex(new Uint8Array(sid.valueBlock.valueHexView));
  return certs.find((c) => {
    const ext = extension(c, '2.5.29.14');
    if (!ext) return false;
    const inner = asn1js.fromBER(extensionValue(ext));
    return (
      inner.result instanceof asn1js.OctetString && toHex(new Uint8Array(inner.result.valueBlock.valueHexView)) === ski
    );
  });
}
