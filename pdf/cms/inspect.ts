/**
 * Reads a CMS SignedData (a PDF /Contents value) for verification: who signed, what the signed
 * attributes say, whether the signature over them verifies with the signer's key, and the
 * embedded signature timestamp(s). Trust (chains to a root, revocation) is the caller's business.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MoharError, isMoharError } from '../../common/errors.js';
import { equalBytes, toArrayBuffer } from './der.js';
import { DIGEST_BY_OID, OID, newHash } from './oids.js';
import { certificatesOf, checkSignerInfo, type EssCheck } from './signer-info.js';
import { checkTimestampToken, type TimestampTokenCheck } from './timestamp.js';

export interface CmsInspection {
  /** True when the SignedData carries no content (detached, as in PAdES). */
  readonly detached: boolean;
  readonly eContentType: string;
  readonly signerCount: number;
  /** DER signer certificate, null when the CMS does not carry it. */
  readonly signerCertificate: Uint8Array | null;
  /** Every certificate in the CMS certificate set (signer first when found). */
  readonly certificates: Uint8Array[];
  /** Node digest name ("sha256") or the OID when unknown. */
  readonly digestAlgorithm: string;
  /** e.g. "sha256WithRSAEncryption", "ecdsa-with-SHA256", "RSASSA-PSS/sha256". */
  readonly signatureAlgorithm: string;
  readonly signatureValue: Uint8Array;
  readonly contentType: string | null;
  /** The message-digest signed attribute. */
  readonly messageDigest: Uint8Array | null;
  /** Whether messageDigest equals the digest of the given content; null when no content was given. */
  readonly messageDigestMatches: boolean | null;
  /**
   * A CMS signing-time attribute is present (not allowed in PAdES baseline signatures; noted in `baselineNotes` for
   * id-data content only).
   */
  readonly hasSigningTime: boolean;
  readonly signingTime: Date | null;
  /** ESS signing-certificate(-v2) attribute: its version and whether it names the signer certificate. */
  readonly signingCertificate: EssCheck | null;
  /** The signature over the DER signed attributes verifies with the signer certificate's key. */
  readonly signatureValid: boolean;
  /**
   * Signature timestamps (unsigned attribute 1.2.840.113549.1.9.16.2.14), imprint checked against the signature value.
   */
  readonly timestamps: TimestampTokenCheck[];
  /** The first of `timestamps`, or null. */
  readonly timestamp: TimestampTokenCheck | null;
  /** Everything found wrong, in words. Empty for a sound signature (trust not judged). */
  readonly problems: string[];
  /**
   * Why the signature, sound as it may be, is not a PAdES baseline signature (ETSI EN 319 142-1): a signing-time
   * attribute, no ESS signing-certificate(-v2) attribute, no signed attributes at all. Older adbe.pkcs7.detached
   * signers (Acrobat, many DSC tools) make such signatures; ISO 32000 and every validator accept them.
   */
  readonly baselineNotes: string[];
  /** Number of zero bytes after the DER (the /Contents padding). */
  readonly paddingBytes: number;
}

export interface InspectCmsOptions {
  /** The signed bytes (for PDFs: the ByteRange parts, in order), hashed with the CMS digest algorithm. */
  readonly content?: Uint8Array | readonly Uint8Array[];
  /** Or their digest, computed with the CMS digest algorithm by the caller. */
  readonly contentDigest?: Uint8Array;
}

function malformed(message: string, cause?: unknown): MoharError {
  return new MoharError('invalid_signature_data', message, cause === undefined ? {} : { cause });
}

/** Inspects a CMS SignedData. Malformed input → MoharError('invalid_signature_data'). */
export function inspectCms(der: Uint8Array, options: InspectCmsOptions = {}): CmsInspection {
  const asn1 = asn1js.fromBER(toArrayBuffer(der));
  if (asn1.offset === -1) throw malformed(`malformed CMS: ${asn1.result.error || 'not BER'}`);
  let paddingBytes = 0;
  for (let i = asn1.offset; i < der.length; i++) {
    if (der[i] !== 0) throw malformed('malformed CMS: unexpected bytes after the structure');
    paddingBytes++;
  }
  let signedData: pkijs.SignedData;
  try {
    const ci = new pkijs.ContentInfo({ schema: asn1.result });
    if (ci.contentType !== OID.signedData) throw new Error(`content type ${ci.contentType} is not SignedData`);
    signedData = new pkijs.SignedData({ schema: ci.content });
  } catch (e) {
    throw malformed(`malformed CMS: ${(e as Error).message}`, e);
  }
  if (signedData.signerInfos.length === 0) throw malformed('malformed CMS: no SignerInfo');

  const certs = certificatesOf(signedData, 'invalid_signature_data');
  const eContent = signedData.encapContentInfo.eContent;
  const given = options.content ?? (eContent ? new Uint8Array(eContent.getValue()) : undefined);
  const content = given === undefined ? undefined : given instanceof Uint8Array ? [given] : given;
  const si = checkSignerInfo(signedData, 0, certs, content);
  const problems = [...si.problems];
  if (signedData.signerInfos.length !== 1) problems.push(`${signedData.signerInfos.length} signers instead of one`);
  const eContentType = signedData.encapContentInfo.eContentType;
  const detached = !eContent;
  if (si.contentType !== null && si.contentType !== eContentType) {
    problems.push('the content-type attribute differs from the encapsulated content type');
  }

  let messageDigestMatches: boolean | null = null;
  const baselineNotes: string[] = [];
  if (!si.signedAttributesDer) {
    // The signature is over the content itself: it matches the content exactly when it verifies.
    baselineNotes.push('no signed attributes (the signature is over the content directly)');
    if (content) messageDigestMatches = si.signatureValid;
  } else if (options.contentDigest || content) {
    let expected = options.contentDigest;
    if (!expected && content && si.digestName) {
      const h = newHash(si.digestName);
      for (const part of content) h.update(part);
      expected = new Uint8Array(h.digest());
    }
    messageDigestMatches = !!expected && !!si.messageDigest && equalBytes(expected, si.messageDigest);
    if (!messageDigestMatches) {
      problems.push(
        si.digestName
          ? 'the message digest does not match the signed content'
          : `unsupported digest algorithm ${si.digestAlgorithm}`,
      );
    }
  }
  // PAdES baseline rules for signatures over data (a timestamp token, e.g. a document timestamp, may carry
  // signing-time).
  if (si.hasSigningTimeAttribute && eContentType === OID.data) {
    baselineNotes.push('a CMS signing-time attribute is present (not allowed in PAdES baseline)');
  }
  if (!si.ess) baselineNotes.push('no ESS signing-certificate(-v2) attribute (required in PAdES baseline)');
  else if (si.ess.matchesSigner === false) {
    problems.push('the ESS signing-certificate attribute does not name the signer certificate');
  }

  const timestamps: TimestampTokenCheck[] = [];
  const unsigned = signedData.signerInfos[0]!.unsignedAttrs?.attributes ?? [];
  for (const attr of unsigned) {
    if (attr.type !== OID.signatureTimeStampToken) continue;
    for (const value of attr.values as asn1js.AsnType[]) {
      let token: TimestampTokenCheck;
      try {
        token = checkTimestampToken(new Uint8Array(value.valueBeforeDecodeView), { data: si.signatureValue });
      } catch (e) {
        if (!isMoharError(e)) throw e;
        problems.push(`signature timestamp: ${e.message}`);
        continue;
      }
      timestamps.push(token);
      problems.push(...token.problems.map((p) => `signature timestamp: ${p}`));
    }
  }

  const signer = si.signer;
  return {
    detached,
    eContentType,
    signerCount: signedData.signerInfos.length,
    signerCertificate: signer?.der ?? null,
    certificates: [...(signer ? [signer.der] : []), ...certs.filter((c) => c !== signer).map((c) => c.der)],
    digestAlgorithm: si.digestName ?? DIGEST_BY_OID[si.digestAlgorithm] ?? si.digestAlgorithm,
    signatureAlgorithm: si.signatureAlgorithm,
    signatureValue: si.signatureValue,
    contentType: si.contentType,
    messageDigest: si.messageDigest,
    messageDigestMatches,
    hasSigningTime: si.hasSigningTimeAttribute,
    signingTime: si.signingTime,
    signingCertificate: si.ess,
    signatureValid: si.signatureValid,
    timestamps,
    timestamp: timestamps[0] ?? null,
    problems,
    baselineNotes,
    paddingBytes,
  };
}
