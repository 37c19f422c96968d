/**
 * Checks one SignerInfo of a parsed SignedData: finds the signer certificate, reads the signed
 * attributes and verifies the signature over their DER SET encoding. Shared by the inspector
 * (document signatures) and the timestamp checks (TSA signatures).
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { ErrorCode } from '../../common/errors.js';
import { equalBytes, toHex } from './der.js';
import { DIGEST_BY_OID, OID } from './oids.js';
import { verifySignature } from './verify.js';
import { certInfo, digest, findBySignerId, type CertInfo } from './x509.js';

export interface EssCheck {
  /** Which ESS attribute: v2 (signing-certificate-v2) or v1 (signing-certificate, SHA-1). */
  readonly version: 1 | 2;
  /** Hash algorithm name of the first ESSCertID. */
  readonly hashAlgorithm: string;
  /** The first ESSCertID hashes the signer certificate (and its issuerSerial, if present, names it). */
  readonly matchesSigner: boolean | null;
}

export interface SignerInfoCheck {
  readonly signer: CertInfo | null;
  readonly digestAlgorithm: string;
  /** Node name of the digest algorithm, undefined when unknown. */
  readonly digestName: string | undefined;
  readonly signatureAlgorithm: string;
  readonly signatureValue: Uint8Array;
  /** DER SET of the signed attributes as carried (tag rewritten to SET), null when absent. */
  readonly signedAttributesDer: Uint8Array | null;
  readonly contentType: string | null;
  readonly messageDigest: Uint8Array | null;
  readonly signingTime: Date | null;
  readonly hasSigningTimeAttribute: boolean;
  readonly ess: EssCheck | null;
  readonly signatureValid: boolean;
  readonly problems: string[];
}

function attributeValues(
  attrs: pkijs.SignedAndUnsignedAttributes | undefined,
  type: string,
): asn1js.AsnType[] | undefined {
  return attrs?.attributes.find((a) => a.type === type)?.values as asn1js.AsnType[] | undefined;
}

function essCheck(attrs: pkijs.SignedAndUnsignedAttributes | undefined, signer: CertInfo | null): EssCheck | null {
  for (const [version, type] of [
    [2, OID.signingCertificateV2],
    [1, OID.signingCertificate],
  ] as const) {
    const value = attributeValues(attrs, type)?.[0];
    if (!value) continue;
    let hashAlgorithm = version === 2 ? 'sha256' : 'sha1';
    try {
      const certs = (value as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
      const first = certs.valueBlock.value[0] as asn1js.Sequence;
      const parts = first.valueBlock.value;
      let i = 0;
      if (version === 2 && parts[0] instanceof asn1js.Sequence) {
        const alg = new pkijs.AlgorithmIdentifier({ schema: parts[0] });
        hashAlgorithm = DIGEST_BY_OID[alg.algorithmId] ?? alg.algorithmId;
        i = 1;
      }
      const hash = parts[i];
      if (!(hash instanceof asn1js.OctetString)) return { version, hashAlgorithm, matchesSigner: false };
      if (!signer) return { version, hashAlgorithm, matchesSigner: null };
      let matches =
        Object.values(DIGEST_BY_OID).includes(hashAlgorithm) &&
        equalBytes(new Uint8Array(hash.valueBlock.valueHexView), digest(hashAlgorithm, signer.der));
      const issuerSerial = parts[i + 1];
      if (matches && issuerSerial instanceof asn1js.Sequence) {
        const serial = issuerSerial.valueBlock.value[1];
        matches =
          serial instanceof asn1js.Integer &&
          toHex(new Uint8Array(serial.valueBlock.valueHexView)) === signer.serialHex;
      }
      return { version, hashAlgorithm, matchesSigner: matches };
    } catch {
      return { version, hashAlgorithm, matchesSigner: false };
    }
  }
  return null;
}

/**
 * Checks signerInfos[index] against the certificates `certs` (the SignedData's own plus any extra). A SignerInfo
 * without signed attributes signs the content itself (RFC 5652 5.4): `content` (its parts, in order) is then what
 * the signature is checked over; without it such a signature cannot be checked.
 */
export function checkSignerInfo(
  signedData: pkijs.SignedData,
  index: number,
  certs: readonly CertInfo[],
  content?: readonly Uint8Array[],
): SignerInfoCheck {
  const si = signedData.signerInfos[index];
  if (!si) throw new RangeError('no SignerInfo at index ' + index);
  const problems: string[] = [];
  const signer = findBySignerId(certs, si.sid as pkijs.IssuerAndSerialNumber | asn1js.OctetString) ?? null;
  if (!signer) problems.push('the signer certificate is not in the CMS');
  const digestOid = si.digestAlgorithm.algorithmId;
  const digestName = DIGEST_BY_OID[digestOid];
  const signatureValue = new Uint8Array(si.signature.valueBlock.valueHexView);
  const attrs = si.signedAttrs;
  const signedAttributesDer = attrs ? new Uint8Array(attrs.encodedValue) : null;

  const ct = attributeValues(attrs, OID.contentType)?.[0];
  const contentType = ct instanceof asn1js.ObjectIdentifier ? ct.valueBlock.toString() : null;
  const md = attributeValues(attrs, OID.messageDigest)?.[0];
  const messageDigest = md instanceof asn1js.OctetString ? new Uint8Array(md.valueBlock.valueHexView) : null;
  const st = attributeValues(attrs, OID.signingTime)?.[0];
  const signingTime = st instanceof asn1js.UTCTime || st instanceof asn1js.GeneralizedTime ? st.toDate() : null;
  const ess = essCheck(attrs, signer);

  let signatureValid = false;
  let signatureAlgorithm = si.signatureAlgorithm.algorithmId;
  if (!signedAttributesDer) {
    if (!content) problems.push('no signed attributes, and no content to check the signature over');
    else if (signer) {
      const check = verifySignature(
        signer.publicKey,
        si.signatureAlgorithm,
        digestOid,
        content.length === 1 ? content[0]! : Buffer.concat(content),
        signatureValue,
      );
      signatureAlgorithm = check.algorithm;
      signatureValid = check.ok;
      if (!check.ok) problems.push(check.reason ?? 'the signature does not verify');
    }
  } else {
    if (!contentType) problems.push('the content-type signed attribute is missing');
    if (!messageDigest) problems.push('the message-digest signed attribute is missing');
    if (signer) {
      const check = verifySignature(
        signer.publicKey,
        si.signatureAlgorithm,
        digestOid,
        signedAttributesDer,
        signatureValue,
      );
      signatureAlgorithm = check.algorithm;
      signatureValid = check.ok;
      if (!check.ok) problems.push(check.reason ?? 'the signature does not verify');
    }
  }
  return {
    signer,
    digestAlgorithm: digestOid,
    digestName,
    signatureAlgorithm,
    signatureValue,
    signedAttributesDer,
    contentType,
    messageDigest,
    signingTime,
    hasSigningTimeAttribute: st !== undefined,
    ess,
    signatureValid,
    problems,
  };
}

/** The DER certificates of a SignedData's certificate set (X.509 ones only). */
export function certificatesOf(signedData: pkijs.SignedData, code: ErrorCode): CertInfo[] {
  const out: CertInfo[] = [];
  for (const c of signedData.certificates ?? []) {
    if (!(c instanceof pkijs.Certificate)) continue;
    const der = new Uint8Array(c.toSchema().toBER(false));
    out.push(certInfo(der, code));
  }
  return out;
}
