/**
 * RFC 3161 timestamps: requests through the HttpTransport port, strict checks of the answer, and
 * the B-T signature-time-stamp attribute. A timestamp is never invented: any failure while
 * obtaining one is MoharError('tsa_unavailable') and the caller decides whether to stop or to
 * degrade visibly.
 */
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MoharError, isMoharError, type ErrorCode } from '../../common/errors.js';
import type { HttpTransport } from '../ports.js';
import {
  childrenOf,
  equalBytes,
  fromBufferSource,
  oid,
  positiveIntegerContent,
  readTlv,
  seq,
  set,
  sortDerSet,
  tlv,
  toArrayBuffer,
  toHex,
  type Tlv,
} from './der.js';
import { DIGEST_BY_OID, OID } from './oids.js';
import { certificatesOf, checkSignerInfo } from './signer-info.js';
import { digest as hashWith, extendedKeyUsage, sha256, type CertInfo } from './x509.js';

/** What a TimeStampToken says and whether it holds up. Verification problems are listed, not thrown. */
export interface TimestampTokenCheck {
  /** The token (a CMS ContentInfo) as DER. */
  readonly tokenDer: Uint8Array;
  readonly genTime: Date;
  readonly policy: string;
  /** TSTInfo serialNumber, hex. */
  readonly serialNumber: string;
  readonly nonce: bigint | null;
  /** Node digest name of the imprint (e.g. "sha256"), or its OID when unknown. */
  readonly imprintAlgorithm: string;
  readonly imprint: Uint8Array;
  /** Whether the imprint equals the expected digest; null when no expectation was given. */
  readonly imprintMatches: boolean | null;
  /** The TSA's signature over the TSTInfo verifies with the TSA certificate, and the message digest matches. */
  readonly signatureValid: boolean;
  /** The TSA certificate has a critical extended key usage holding only id-kp-timeStamping. */
  readonly timestampingCertificate: boolean;
  readonly tsaCertificate: Uint8Array | null;
  /** All certificates carried in the token (TSA certificate first when found). */
  readonly certificates: Uint8Array[];
  /** Everything that is wrong; empty when the token is sound (trust in the TSA chain is not judged here). */
  readonly problems: string[];
}

export interface TimestampResult {
  readonly tokenDer: Uint8Array;
  readonly genTime: Date;
  readonly tsaCertificate: Uint8Array;
  /** All certificates carried in the token (TSA certificate first): the TSA chain for B-LT. */
  readonly certificates: Uint8Array[];
}

export interface TimestampExpectation {
  /** The SHA-256 digest the token must cover. */
  readonly digest?: Uint8Array;
  /** Or the data it must cover, hashed with the token's own imprint algorithm. */
  readonly data?: Uint8Array;
  /** Certificates to look for the TSA certificate in when the token does not carry it. */
  readonly extraCertificates?: readonly CertInfo[];
}

/**
 * Parses and checks a TimeStampToken (DER ContentInfo): TSA signature, message digest, ESS
 * signing certificate, timeStamping EKU, imprint. Malformed → MoharError(code); everything
 * else is reported in `problems`. Whether the TSA chain is trusted is for the caller.
 */
export function checkTimestampToken(
  tokenDer: Uint8Array,
  expected: TimestampExpectation = {},
  code: ErrorCode = 'invalid_signature_data',
): TimestampTokenCheck {
  let signedData: pkijs.SignedData;
  let tstInfo: pkijs.TSTInfo;
  let eContent: Uint8Array;
  try {
    const ci = pkijs.ContentInfo.fromBER(toArrayBuffer(tokenDer));
    if (ci.contentType !== OID.signedData) throw new Error('the token is not a SignedData');
    signedData = new pkijs.SignedData({ schema: ci.content });
    if (signedData.encapContentInfo.eContentType !== OID.tstInfo) throw new Error('the token does not hold a TSTInfo');
    const content = signedData.encapContentInfo.eContent;
    if (!content) throw new Error('the token has no TSTInfo content');
    eContent = new Uint8Array(content.getValue());
    tstInfo = pkijs.TSTInfo.fromBER(toArrayBuffer(eContent));
  } catch (e) {
    if (isMoharError(e)) throw e;
    throw new MoharError(code, `malformed timestamp token: ${(e as Error).message}`, { cause: e });
  }
  const problems: string[] = [];
  const own = certificatesOf(signedData, code);
  if (signedData.signerInfos.length !== 1) {
    problems.push(`the token has ${signedData.signerInfos.length} signers instead of one`);
  }
  const si = checkSignerInfo(signedData, 0, [...own, ...(expected.extraCertificates ?? [])]);
  problems.push(...si.problems.map((p) => `TSA signature: ${p}`));
  let signatureValid = si.signatureValid;
  if (si.contentType !== OID.tstInfo) {
    problems.push('TSA signature: the content-type attribute is not id-ct-TSTInfo');
    signatureValid = false;
  }
  if (!si.digestName) {
    problems.push(`TSA signature: unsupported digest algorithm ${si.digestAlgorithm}`);
    signatureValid = false;
  } else if (!si.messageDigest || !equalBytes(si.messageDigest, hashWith(si.digestName, eContent))) {
    problems.push('TSA signature: the message-digest attribute does not match the TSTInfo');
    signatureValid = false;
  }
  if (!si.ess) problems.push('the token has no ESS signing-certificate attribute');
  else if (si.ess.matchesSigner === false) {
    problems.push('the ESS signing-certificate attribute does not name the TSA certificate');
    signatureValid = false;
  }

  let timestampingCertificate = false;
  const tsa = si.signer;
  if (tsa) {
    const eku = extendedKeyUsage(tsa);
    timestampingCertificate =
      !!eku && eku.critical && eku.purposes.length === 1 && eku.purposes[0] === OID.kpTimeStamping;
    if (!timestampingCertificate) {
      problems.push('the TSA certificate lacks a critical extended key usage of id-kp-timeStamping only');
    }
    const genTime = tstInfo.genTime.getTime();
    if (genTime < Date.parse(tsa.x509.validFrom) || genTime > Date.parse(tsa.x509.validTo)) {
      problems.push('genTime is outside the TSA certificate validity');
    }
  }

  const imprintOid = tstInfo.messageImprint.hashAlgorithm.algorithmId;
  const imprint = new Uint8Array(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView);
  let imprintMatches: boolean | null = null;
  if (expected.digest) {
    imprintMatches = imprintOid === OID.sha256 && equalBytes(imprint, expected.digest);
    if (!imprintMatches) problems.push('the token imprint does not match the expected SHA-256 digest');
  } else if (expected.data) {
    const name = DIGEST_BY_OID[imprintOid];
    imprintMatches = name !== undefined && equalBytes(imprint, hashWith(name, expected.data));
    if (!imprintMatches) {
      problems.push(
        name ? 'the token imprint does not match the timestamped data' : `unsupported imprint algorithm ${imprintOid}`,
      );
    }
  }
  const certificates = [...(tsa ? [tsa.der] : []), ...own.filter((c) => c !== tsa).map((c) => c.der)];
  return {
    tokenDer,
    genTime: tstInfo.genTime,
    policy: tstInfo.policy,
    serialNumber: toHex(new Uint8Array(tstInfo.serialNumber.valueBlock.valueHexView)),
    nonce: tstInfo.nonce ? tstInfo.nonce.toBigInt() : null,
    imprintAlgorithm: DIGEST_BY_OID[imprintOid] ?? imprintOid,
    imprint,
    imprintMatches,
    signatureValid,
    timestampingCertificate,
    tsaCertificate: tsa?.der ?? null,
    certificates,
    problems,
  };
}

function unavailable(url: string, why: string, cause?: unknown): MoharError {
  return new MoharError('tsa_unavailable', `timestamp from ${url}: ${why}`, {
    extra: { tsaUrl: url },
    ...(cause === undefined ? {} : { cause }),
  });
}

const FAIL_INFO = [
  'badAlg',
  '',
  'badRequest',
  '',
  '',
  'badDataFormat',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  'timeNotAvailable',
  'unacceptedPolicy',
  'unacceptedExtension',
  'addInfoNotAvailable',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  'systemFailure',
];

/**
 * Requests an RFC 3161 timestamp over `digest` (SHA-256, 32 bytes) and checks the answer:
 * status granted or grantedWithMods, imprint and nonce as sent, TSA signature valid with the TSA
 * certificate carried in the token, TSA certificate with a critical timeStamping EKU.
 * Any failure → MoharError('tsa_unavailable').
 */
export async function requestTimestamp(
  transport: HttpTransport,
  url: string,
  digest: Uint8Array,
): Promise<TimestampResult> {
  if (digest.length !== 32) throw new RangeError('digest must be a SHA-256 digest (32 bytes)');
  const nonceBytes = positiveIntegerContent(randomBytes(8));
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(digest) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonceBytes) }),
    certReq: true,
  });
  const body = fromBufferSource(request.toSchema().toBER(false));
  let response: Uint8Array;
  try {
    response = await transport({
      url,
      body,
      contentType: 'application/timestamp-query',
      accept: 'application/timestamp-reply',
    });
  } catch (e) {
    throw unavailable(url, `the request failed: ${(e as Error).message}`, e);
  }

  let token: Uint8Array;
  try {
    const top = readTlv(response, 0);
    const parts = childrenOf(response, top);
    const status = pkijs.PKIStatusInfo.fromBER(
      toArrayBuffer(response.subarray(parts[0]?.start ?? 0, parts[0]?.end ?? 0)),
    );
    if (status.status !== 0 && status.status !== 1) {
      const text = status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
      const bits = status.failInfo ? new Uint8Array(status.failInfo.valueBlock.valueHexView) : new Uint8Array(0);
      const fails = FAIL_INFO.filter((name, i) => name && ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0);
      throw unavailable(
        url,
        `the TSA refused (status ${status.status}${text ? `: ${text}` : ''}${fails.length ? `; ${fails.join(', ')}` : ''})`,
      );
    }
    const tokenTlv = parts[1];
    if (!tokenTlv) throw unavailable(url, 'the reply is granted but holds no token');
    token = response.slice(tokenTlv.start, tokenTlv.end);
  } catch (e) {
    if (isMoharError(e, 'tsa_unavailable')) throw e;
    throw unavailable(url, `the reply is not a TimeStampResp: ${(e as Error).message}`, e);
  }

  let check: TimestampTokenCheck;
  try {
    check = checkTimestampToken(token, { digest }, 'tsa_unavailable');
  } catch (e) {
    throw unavailable(url, (e as Error).message, e);
  }
  const expectedNonce = BigInt('0x' + toHex(nonceBytes));
  if (check.nonce !== expectedNonce) check.problems.push('the token nonce does not match the request');
  if (check.imprintAlgorithm !== 'sha256') check.problems.push('the token imprint is not SHA-256');
  if (!check.tsaCertificate) check.problems.push('the token does not carry the TSA certificate');
  if (check.problems.length > 0 || !check.signatureValid || !check.tsaCertificate) {
    throw unavailable(url, `the reply does not hold up: ${check.problems.join('; ') || 'invalid TSA signature'}`);
  }
  return {
    tokenDer: token,
    genTime: check.genTime,
    tsaCertificate: check.tsaCertificate,
    certificates: check.certificates,
  };
}

/**
 * A document timestamp (PAdES B-LTA, `/Type /DocTimeStamp`, `/SubFilter /ETSI.RFC3161`): the
 * TimeStampToken over the SHA-256 of the ByteRange bytes is itself the /Contents value.
 */
export async function requestDocumentTimestamp(
  transport: HttpTransport,
  url: string,
  byteRangeDigest: Uint8Array,
): Promise<TimestampResult> {
  return requestTimestamp(transport, url, byteRangeDigest);
}

interface SignerInfoLocation {
  /** ContentInfo, [0], SignedData, SignerInfos, SignerInfo: outermost first. */
  readonly path: Tlv[];
  readonly fields: Tlv[];
  readonly signature: Tlv;
}

function locateSignerInfo(cms: Uint8Array, index: number): SignerInfoLocation {
  const contentInfo = readTlv(cms, 0);
  const ciParts = childrenOf(cms, contentInfo);
  const explicit = ciParts[1];
  if (
    ciParts[0]?.tag !== 0x06 ||
    !equalBytes(cms.subarray(ciParts[0].start, ciParts[0].end), oid(OID.signedData)) ||
    explicit?.tag !== 0xa0
  ) {
    throw new MoharError('invalid_signature_data', 'the CMS is not a SignedData ContentInfo');
  }
  const signedData = childrenOf(cms, explicit)[0];
  if (signedData?.tag !== 0x30) throw new MoharError('invalid_signature_data', 'malformed SignedData');
  const sdParts = childrenOf(cms, signedData);
  const signerInfos = sdParts[sdParts.length - 1];
  if (signerInfos?.tag !== 0x31) throw new MoharError('invalid_signature_data', 'malformed SignedData: no SignerInfos');
  const signerInfo = childrenOf(cms, signerInfos)[index];
  if (signerInfo?.tag !== 0x30) throw new MoharError('invalid_signature_data', `no SignerInfo at index ${index}`);
  const fields = childrenOf(cms, signerInfo);
  const signature = fields.find((f, i) => f.tag === 0x04 && i >= 4);
  if (!signature) throw new MoharError('invalid_signature_data', 'malformed SignerInfo: no signature value');
  return { path: [contentInfo, explicit, signedData, signerInfos, signerInfo], fields, signature };
}

/**
 * Replaces the innermost element of `path` with `replacement`, re-lengthing every enclosing element (trailing padding
 * is dropped).
 */
function spliceAtPath(buf: Uint8Array, path: readonly Tlv[], replacement: Uint8Array): Uint8Array {
  let bytes = replacement;
  for (let i = path.length - 2; i >= 0; i--) {
    const parent = path[i]!;
    const child = path[i + 1]!;
    bytes = tlv(parent.tag, buf.subarray(parent.contentStart, child.start), bytes, buf.subarray(child.end, parent.end));
  }
  return bytes;
}

/** Adds an unsigned attribute to SignerInfo `index` without re-encoding anything else. */
export function addUnsignedAttribute(cmsDer: Uint8Array, type: string, value: Uint8Array, index = 0): Uint8Array {
  const at = locateSignerInfo(cmsDer, index);
  const attribute = seq(oid(type), set(value));
  const signerInfo = at.path[at.path.length - 1]!;
  const existing = at.fields.find((f) => f.tag === 0xa1);
  const kept = at.fields.filter((f) => f !== existing).map((f) => cmsDer.subarray(f.start, f.end));
  const attrs = existing ? childrenOf(cmsDer, existing).map((f) => cmsDer.subarray(f.start, f.end)) : [];
  const newSignerInfo = tlv(signerInfo.tag, ...kept, tlv(0xa1, ...sortDerSet([...attrs, attribute])));
  return spliceAtPath(cmsDer, at.path, newSignerInfo);
}

/** The signature value of SignerInfo `index` (what a B-T timestamp covers). */
export function signatureValueOf(cmsDer: Uint8Array, index = 0): Uint8Array {
  const at = locateSignerInfo(cmsDer, index);
  return cmsDer.slice(at.signature.contentStart, at.signature.end);
}

/**
 * PAdES B-T: timestamps the SignerInfo's signature value and adds the token as the
 * signature-time-stamp unsigned attribute (1.2.840.113549.1.9.16.2.14). Returns the new CMS DER;
 * everything else stays byte-identical. TSA problems → MoharError('tsa_unavailable').
 */
export async function addSignatureTimestamp(
  cmsDer: Uint8Array,
  transport: HttpTransport,
  url: string,
): Promise<Uint8Array> {
  const signatureValue = signatureValueOf(cmsDer);
  const ts = await requestTimestamp(transport, url, sha256(signatureValue));
  return addUnsignedAttribute(cmsDer, OID.signatureTimeStampToken, ts.tokenDer);
}
