/**
 * X.509 for the token UI and for matching certificates to keys: names, validity, key usage, policies
 * (with the CCA India class), e-mail, and the public key material (RSA modulus / EC point) that PKCS#11
 * key objects are compared with. pkijs/asn1js parse the structure and extensions; node's crypto gives the
 * key details and the fingerprint.
 *
 * Not shared with pdf/cms/x509.ts (the reader of pdf/ and server/): eslint.config.js forbids native/ -> pdf/,
 * and the two read for different ends (key matching and display here; raw DER for CMS and chains there).
 */
import { createHash, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import {
  AltName,
  AttributeTypeAndValue,
  BasicConstraints,
  Certificate,
  CertificatePolicies,
  ExtKeyUsage,
  type Extension,
  type RelativeDistinguishedNames,
} from 'pkijs';
import { MoharError } from '../common/errors.js';

export type KeyUsageName =
  | 'digitalSignature'
  | 'nonRepudiation'
  | 'keyEncipherment'
  | 'dataEncipherment'
  | 'keyAgreement'
  | 'keyCertSign'
  | 'cRLSign'
  | 'encipherOnly'
  | 'decipherOnly';

const KEY_USAGE_BITS: readonly KeyUsageName[] = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
];

/** CCA India (Controller of Certifying Authorities) policy arc: 2.16.356.100.2.<class>. */
export const CCA_POLICY_ARC = '2.16.356.100.2';

export interface CcaClass {
  /** The policy OID that placed the certificate under the CCA arc. */
  readonly oid: string;
  /** "Class 1", "Class 2", "Class 3", or "CCA India policy <oid>" for other arcs (e.g. eKYC policies). */
  readonly name: string;
  /** 1, 2 or 3 for the classic classes, null otherwise. */
  readonly level: 1 | 2 | 3 | null;
}

export type EcCurve = 'P-256' | 'P-384' | 'P-521';

export interface CertificateInfo {
  readonly der: Uint8Array;
  /** SHA-256 of the DER, lower-case hex. */
  readonly fingerprintSha256: string;
  /** RFC 4514 string, most specific first, e.g. "emailAddress=asha@example.com,CN=Asha Rao,O=Mohar Test,C=IN". */
  readonly subject: string;
  readonly subjectCommonName: string | null;
  /** First e-mail address: subject emailAddress, else the first rfc822Name of the subjectAltName. */
  readonly email: string | null;
  /** Every e-mail address found (subject, then SAN), without duplicates. */
  readonly emails: readonly string[];
  readonly issuer: string;
  readonly issuerCommonName: string | null;
  /** Serial number, lower-case hex. */
  readonly serialNumber: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Bits set in the keyUsage extension, or null when the extension is absent. */
  readonly keyUsage: readonly KeyUsageName[] | null;
  /** extendedKeyUsage purpose OIDs, or null when absent. */
  readonly extendedKeyUsage: readonly string[] | null;
  /** certificatePolicies policy OIDs (empty when absent). */
  readonly policies: readonly string[];
  readonly ccaClass: CcaClass | null;
  readonly isCa: boolean;
  readonly selfIssued: boolean;
  readonly keyType: 'RSA' | 'EC';
  /** RSA modulus length in bits (RSA only). */
  readonly rsaBits: number | null;
  /** Named curve (EC only); other curves are reported by their node name. */
  readonly curve: EcCurve | string | null;
  /** Big-endian RSA modulus without leading zero bytes (RSA only). */
  readonly rsaModulus: Uint8Array | null;
  /** Uncompressed EC point 04||X||Y (EC only). */
  readonly ecPoint: Uint8Array | null;
  /** DER of the subject and issuer Name (for chain building). */
  readonly subjectDer: Uint8Array;
  readonly issuerDer: Uint8Array;
}

const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'street',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'title',
  '2.5.4.17': 'postalCode',
  '2.5.4.20': 'telephoneNumber',
  '2.5.4.42': 'GN',
  '2.5.4.43': 'initials',
  '2.5.4.44': 'generationQualifier',
  '2.5.4.45': 'x500UniqueIdentifier',
  '2.5.4.46': 'dnQualifier',
  '2.5.4.65': 'pseudonym',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

const OID_EMAIL = '1.2.840.113549.1.9.1';
const OID_CN = '2.5.4.3';

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function fromBase64Url(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

function attributeText(attribute: AttributeTypeAndValue): { text: string; isString: boolean } {
  const value = attribute.value as unknown as { valueBlock?: { value?: unknown } };
  const inner = value.valueBlock?.value;
  if (typeof inner === 'string') return { text: inner, isString: true };
  const ber = new Uint8Array((attribute.value as asn1js.BaseBlock).toBER(false));
  return { text: `#${toHex(ber)}`, isString: false };
}

function escapeRfc4514(value: string): string {
  let out = value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .split('\0')
    .join('\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && out.length > 0) out = `${out.slice(0, -1)}\\ `;
  return out;
}

function formatName(name: RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((atv) => {
      const label = ATTRIBUTE_NAMES[atv.type] ?? atv.type;
      const { text, isString } = attributeText(atv);
      return `${label}=${isString ? escapeRfc4514(text) : text}`;
    })
    .reverse()
    .join(',');
}

function nameValues(name: RelativeDistinguishedNames, oid: string): string[] {
  return name.typesAndValues
    .filter((atv) => atv.type === oid)
    .map((atv) => attributeText(atv))
    .filter((v) => v.isString)
    .map((v) => v.text);
}

function extensionSchema(extension: Extension): asn1js.AsnType {
  const parsed = asn1js.fromBER(extension.extnValue.getValue());
  if (parsed.offset === -1) throw new Error(`bad extension ${extension.extnID}`);
  return parsed.result;
}

/** Maps a policy OID under 2.16.356.100.2 to a readable CCA India class. */
export function ccaClassOf(policies: readonly string[]): CcaClass | null {
  const cca = policies.filter((oid) => oid.startsWith(`${CCA_POLICY_ARC}.`));
  if (cca.length === 0) return null;
  // Prefer a classic class; among several, the highest.
  let best: CcaClass | null = null;
  for (const oid of cca) {
    const arc = oid.slice(CCA_POLICY_ARC.length + 1);
    const level = arc === '1' ? 1 : arc === '2' ? 2 : arc === '3' ? 3 : null;
    const candidate: CcaClass =
      level === null ? { oid, name: `CCA India policy ${oid}`, level } : { oid, name: `Class ${level}`, level };
    if (!best || (candidate.level ?? 0) > (best.level ?? 0)) best = candidate;
  }
  return best;
}

const CURVES: Readonly<Record<string, EcCurve>> = {
  prime256v1: 'P-256',
  'P-256': 'P-256',
  secp384r1: 'P-384',
  'P-384': 'P-384',
  secp521r1: 'P-521',
  'P-521': 'P-521',
};

/** Parsed certificates by DER (hex): a token's certificates are read and parsed twice per signature. */
const PARSED = new Map<string, CertificateInfo>();

/** Parses a DER certificate (memoised by its bytes). Throws MoharError 'invalid_certificate' when it is not one. */
export function parseCertificate(der: Uint8Array): CertificateInfo {
  const key = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('hex');
  const hit = PARSED.get(key);
  if (hit) return hit;
  const info = parseCertificateUncached(der);
  if (PARSED.size >= 256) PARSED.delete(PARSED.keys().next().value!);
  PARSED.set(key, info);
  return info;
}

function parseCertificateUncached(der: Uint8Array): CertificateInfo {
  let cert: Certificate;
  let nodeCert: X509Certificate;
  try {
    const bytes = new Uint8Array(der);
    cert = Certificate.fromBER(bytes);
    nodeCert = new X509Certificate(bytes);
  } catch (error) {
    throw new MoharError(
      'invalid_certificate',
      `not an X.509 certificate: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  let keyUsage: KeyUsageName[] | null = null;
  let extendedKeyUsage: string[] | null = null;
  let policies: string[] = [];
  const sanEmails: string[] = [];
  let isCa = false;
  for (const extension of cert.extensions ?? []) {
    try {
      switch (extension.extnID) {
        case '2.5.29.15': {
          const bits = extensionSchema(extension) as asn1js.BitString;
          const bytes = bits.valueBlock.valueHexView;
          keyUsage = KEY_USAGE_BITS.filter((_, i) => ((bytes[i >> 3] ?? 0) >> (7 - (i & 7))) & 1);
          break;
        }
        case '2.5.29.37':
          extendedKeyUsage = [...new ExtKeyUsage({ schema: extensionSchema(extension) }).keyPurposes];
          break;
        case '2.5.29.32':
          policies = new CertificatePolicies({ schema: extensionSchema(extension) }).certificatePolicies.map(
            (p) => p.policyIdentifier,
          );
          break;
        case '2.5.29.17':
          for (const general of new AltName({ schema: extensionSchema(extension) }).altNames) {
            if (general.type === 1 && typeof general.value === 'string') sanEmails.push(general.value);
          }
          break;
        case '2.5.29.19':
          isCa = new BasicConstraints({ schema: extensionSchema(extension) }).cA === true;
          break;
        default:
          break;
      }
    } catch {
      // A malformed extension is reported as absent rather than hiding the whole certificate.
    }
  }

  const key = nodeCert.publicKey;
  let keyType: 'RSA' | 'EC';
  let rsaBits: number | null = null;
  let curve: string | null = null;
  let rsaModulus: Uint8Array | null = null;
  let ecPoint: Uint8Array | null = null;
  const jwk = key.export({ format: 'jwk' });
  if (key.asymmetricKeyType === 'rsa' && typeof jwk.n === 'string') {
    keyType = 'RSA';
    rsaBits = key.asymmetricKeyDetails?.modulusLength ?? null;
    rsaModulus = stripLeadingZeros(fromBase64Url(jwk.n));
  } else if (key.asymmetricKeyType === 'ec' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    keyType = 'EC';
    const named = key.asymmetricKeyDetails?.namedCurve ?? jwk.crv ?? 'unknown';
    curve = CURVES[named] ?? named;
    const x = fromBase64Url(jwk.x);
    const y = fromBase64Url(jwk.y);
    ecPoint = new Uint8Array(1 + x.length + y.length);
    ecPoint[0] = 4;
    ecPoint.set(x, 1);
    ecPoint.set(y, 1 + x.length);
  } else {
    throw new MoharError(
      'mechanism_not_supported',
      `certificate key type ${key.asymmetricKeyType ?? 'unknown'} is not RSA or EC`,
    );
  }

  const subjectEmails = nameValues(cert.subject, OID_EMAIL);
  const emails = [...new Set([...subjectEmails, ...sanEmails])];
  const subjectCns = nameValues(cert.subject, OID_CN);
  const issuerCns = nameValues(cert.issuer, OID_CN);
  const subjectDer = new Uint8Array(cert.subject.toSchema().toBER(false));
  const issuerDer = new Uint8Array(cert.issuer.toSchema().toBER(false));

  return {
    der: new Uint8Array(der),
    fingerprintSha256: createHash('sha256').update(der).digest('hex'),
    subject: formatName(cert.subject),
    subjectCommonName: subjectCns.length > 0 ? subjectCns[subjectCns.length - 1]! : null,
    email: emails[0] ?? null,
    emails,
    issuer: formatName(cert.issuer),
    issuerCommonName: issuerCns.length > 0 ? issuerCns[issuerCns.length - 1]! : null,
    serialNumber: toHex(stripLeadingZeros(cert.serialNumber.valueBlock.valueHexView)),
    notBefore: cert.notBefore.value,
    notAfter: cert.notAfter.value,
    keyUsage,
    extendedKeyUsage,
    policies,
    ccaClass: ccaClassOf(policies),
    isCa,
    selfIssued: Buffer.from(subjectDer).equals(Buffer.from(issuerDer)),
    keyType,
    rsaBits,
    curve,
    rsaModulus,
    ecPoint,
    subjectDer,
    issuerDer,
  };
}

/** Throws certificate_expired when `now` is outside [notBefore, notAfter]. */
export function assertCertificateValid(info: CertificateInfo, now: Date = new Date()): void {
  const who = info.subjectCommonName ?? info.subject;
  if (now.getTime() > info.notAfter.getTime()) {
    throw new MoharError('certificate_expired', `the certificate of ${who} expired on ${info.notAfter.toISOString()}`, {
      extra: {
        notBefore: info.notBefore.toISOString(),
        notAfter: info.notAfter.toISOString(),
        fingerprintSha256: info.fingerprintSha256,
      },
    });
  }
  if (now.getTime() < info.notBefore.getTime()) {
    throw new MoharError(
      'certificate_expired',
      `the certificate of ${who} is not valid before ${info.notBefore.toISOString()}`,
      {
        extra: {
          notBefore: info.notBefore.toISOString(),
          notAfter: info.notAfter.toISOString(),
          fingerprintSha256: info.fingerprintSha256,
        },
      },
    );
  }
}
