/**
 * Making X.509 certificates with pkijs over node's WebCrypto: the installation seal's CA and seal
 * certificates, and the sandbox's ephemeral self-signed test certificates. One place, so both follow
 * the same encoding rules (separate RDNs, positive 16-octet serials, UTCTime/GeneralizedTime).
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** pkijs types its engine with the DOM's Crypto; node's webcrypto implements it. */
type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });

export const OID_ORGANIZATION = '2.5.4.10';
export const OID_ORGANIZATIONAL_UNIT = '2.5.4.11';
export const OID_COMMON_NAME = '2.5.4.3';
export const OID_EMAIL = '1.2.840.113549.1.9.1';

export function addYears(date: Date, years: number): Date {
  const out = new Date(date);
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
function time(date: Date): pkijs.Time {
  return new pkijs.Time({
    type: date.getUTCFullYear() < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime,
    value: date,
  });
}

/**
 * A Name with one RDN per attribute, in the order given. (pkijs would put every attribute of a
 * RelativeDistinguishedNames into one multi-valued RDN, so the Name is encoded here and parsed back.)
 * emailAddress is an IA5String (RFC 5280 appendix A); everything else UTF8String.
 */
export function distinguishedName(
  attributes: readonly (readonly [oid: string, value: string])[],
): pkijs.RelativeDistinguishedNames {
  const rdn = (type: string, value: string): asn1js.Set => {
    const encoded = type === OID_EMAIL ? new asn1js.IA5String({ value }) : new asn1js.Utf8String({ value });
    return new asn1js.Set({ value: [new pkijs.AttributeTypeAndValue({ type, value: encoded }).toSchema()] });
  };
  const der = new asn1js.Sequence({ value: attributes.map(([type, value]) => rdn(type, value)) }).toBER(false);
  return pkijs.RelativeDistinguishedNames.fromBER(der);
}

/** O=<organization>, CN=<commonName>. */
export function name(organization: string, commonName: string): pkijs.RelativeDistinguishedNames {
  return distinguishedName([
    [OID_ORGANIZATION, organization],
    [OID_COMMON_NAME, commonName],
  ]);
}

function serialNumber(): asn1js.Integer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40; // positive, 16 octets, never a leading zero
  return new asn1js.Integer({ valueHex: toBuffer(bytes) });
}

function toBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function extension(
  extnID: string,
  critical: boolean,
  value: { toBER(sizeOnly?: boolean): ArrayBuffer } | { toSchema(): asn1js.AsnType },
): pkijs.Extension {
  const der = 'toSchema' in value ? value.toSchema().toBER(false) : value.toBER(false);
  return new pkijs.Extension({ extnID, critical, extnValue: der });
}

/** KeyUsage BIT STRING: `bits` as RFC 5280 numbers them (0 = digitalSignature, the first bit). */
function keyUsage(...bits: number[]): asn1js.BitString {
  const value = bits.reduce((v, bit) => v | (0x80 >> bit), 0);
  const highest = Math.max(...bits);
  return new asn1js.BitString({ valueHex: new Uint8Array([value]).buffer, unusedBits: 7 - highest });
}

/** Subject key identifier, RFC 5280 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(cert: pkijs.Certificate): Uint8Array {
  return new Uint8Array(
    createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest(),
  );
}

export interface CertificateSpec {
  readonly subject: pkijs.RelativeDistinguishedNames;
  readonly issuer: pkijs.RelativeDistinguishedNames;
  readonly publicKey: webcrypto.CryptoKey;
  readonly issuerKey: webcrypto.CryptoKey;
  readonly issuerKeyId: Uint8Array | undefined;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /**
   * A CA certificate (keyCertSign + cRLSign) or an end-entity signing certificate (digitalSignature + nonRepudiation).
   */
  readonly ca: boolean;
}

/** Signs the certificate with SHA-256 under the issuer key; returns its DER and subject key identifier. */
export async function makeCertificate(spec: CertificateSpec): Promise<{ der: Uint8Array; keyId: Uint8Array }> {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = serialNumber();
  cert.subject = spec.subject;
  cert.issuer = spec.issuer;
  cert.notBefore = time(spec.notBefore);
  cert.notAfter = time(spec.notAfter);
  await cert.subjectPublicKeyInfo.importKey(spec.publicKey, engine);
  const keyId = keyIdentifier(cert);
  const extensions = [
    extension(
      '2.5.29.19',
      true,
      spec.ca
        ? new pkijs.BasicConstraints({ cA: true, pathLenConstraint: 0 })
        : new pkijs.BasicConstraints({ cA: false }),
    ),
    extension('2.5.29.15', true, spec.ca ? keyUsage(5, 6) : keyUsage(0, 1)),
    extension('2.5.29.14', false, new asn1js.OctetString({ valueHex: toBuffer(keyId) })),
  ];
  if (spec.issuerKeyId) {
    extensions.push(
      extension(
        '2.5.29.35',
        false,
        new pkijs.AuthorityKeyIdentifier({
          keyIdentifier: new asn1js.OctetString({ valueHex: toBuffer(spec.issuerKeyId) }),
        }),
      ),
    );
  }
  cert.extensions = extensions;
  await cert.sign(spec.issuerKey, 'SHA-256', engine);
  return { der: new Uint8Array(cert.toSchema(true).toBER(false)), keyId };
}
