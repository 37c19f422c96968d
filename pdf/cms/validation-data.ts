/**
 * Long-term validation material for PAdES B-LT (/DSS): the certificates of the signer and TSA
 * chains (missing issuers fetched through AIA caIssuers), an OCSP response for every non-root
 * certificate (AIA OCSP, SHA-1 CertID), or a CRL from its distribution points when there is no
 * OCSP URL or OCSP fails. Every response is checked (signature, issuer, freshness) before it is
 * kept; what was found is reported per certificate. All fetching goes through the HttpTransport port.
 * This file holds the checks and the shapes; the gathering itself, in stages, is gather-validation-data.ts.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { HttpTransport } from '../ports.js';
import { equalBytes, fromBufferSource, looksLikePem, pemBlocks, toArrayBuffer, toHex } from './der.js';
import { DIGEST_BY_OID, OID } from './oids.js';
import { verifySignature } from './verify.js';
import { certInfo, digest, extendedKeyUsage, isIssuedBy, type CertInfo } from './x509.js';

/** Clock skew tolerated on thisUpdate / nextUpdate. */
const SKEW_MS = 5 * 60_000;

export type RevocationStatus = 'good' | 'revoked' | 'unknown';

const REASONS = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  '',
  'removeFromCRL',
  'privilegeWithdrawn',
  'aACompromise',
];

export interface OcspCheck {
  /** Signature verified with an authorised responder, the response covers the certificate and is fresh. */
  readonly valid: boolean;
  readonly status: RevocationStatus | null;
  readonly producedAt: Date | null;
  readonly thisUpdate: Date | null;
  readonly nextUpdate: Date | null;
  readonly revocationTime: Date | null;
  readonly revocationReason: string | null;
  /** The delegated responder certificate (null when the CA signed the response itself). */
  readonly responderCertificate: Uint8Array | null;
  readonly problems: string[];
}

export interface CrlCheck {
  /** Signed by the issuer, names the issuer, fresh. */
  readonly valid: boolean;
  readonly status: 'good' | 'revoked' | null;
  readonly thisUpdate: Date | null;
  readonly nextUpdate: Date | null;
  readonly revocationTime: Date | null;
  readonly revocationReason: string | null;
  readonly problems: string[];
}

function failedOcsp(problem: string): OcspCheck {
  return {
    valid: false,
    status: null,
    producedAt: null,
    thisUpdate: null,
    nextUpdate: null,
    revocationTime: null,
    revocationReason: null,
    responderCertificate: null,
    problems: [problem],
  };
}

function freshness(thisUpdate: Date, nextUpdate: Date | undefined, at: Date, problems: string[]): void {
  if (thisUpdate.getTime() > at.getTime() + SKEW_MS) {
    problems.push(`thisUpdate ${thisUpdate.toISOString()} is in the future`);
  }
  if (nextUpdate && nextUpdate.getTime() < at.getTime() - SKEW_MS) {
    problems.push(`expired: nextUpdate was ${nextUpdate.toISOString()}`);
  }
}

/** The SHA-1 OCSP CertID of `cert` as issued by `issuer` (RFC 6960; what responders expect). */
export function ocspCertId(cert: CertInfo, issuer: CertInfo): pkijs.CertID {
  return new pkijs.CertID({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha1, algorithmParams: new asn1js.Null() }),
    issuerNameHash: new asn1js.OctetString({ valueHex: toArrayBuffer(digest('sha1', cert.issuerDer)) }),
    issuerKeyHash: new asn1js.OctetString({ valueHex: toArrayBuffer(digest('sha1', issuer.publicKeyBits)) }),
    serialNumber: new asn1js.Integer({ valueHex: toArrayBuffer(cert.serial) }),
  });
}

/** DER OCSPRequest for one certificate (no nonce, no signature). */
export function buildOcspRequest(cert: CertInfo, issuer: CertInfo): Uint8Array {
  const request = new pkijs.OCSPRequest({
    tbsRequest: new pkijs.TBSRequest({ requestList: [new pkijs.Request({ reqCert: ocspCertId(cert, issuer) })] }),
  });
  return fromBufferSource(request.toSchema(true).toBER(false));
}

function certIdMatches(id: pkijs.CertID, cert: CertInfo, issuer: CertInfo): boolean {
  const name = DIGEST_BY_OID[id.hashAlgorithm.algorithmId];
  if (!name) return false;
  return (
    equalBytes(new Uint8Array(id.issuerNameHash.valueBlock.valueHexView), digest(name, cert.issuerDer)) &&
    equalBytes(new Uint8Array(id.issuerKeyHash.valueBlock.valueHexView), digest(name, issuer.publicKeyBits)) &&
    toHex(new Uint8Array(id.serialNumber.valueBlock.valueHexView)) === cert.serialHex
  );
}

/**
 * Checks a DER OCSPResponse for `cert` (issued by `issuer`) at time `at`: response status, basic
 * response, responder authorised (the issuer itself, or a certificate it issued with the OCSPSigning
 * EKU), signature, CertID match, freshness. Never throws on bad input: problems are reported.
 */
export function checkOcspResponse(
  responseDer: Uint8Array,
  cert: CertInfo,
  issuer: CertInfo,
  at: Date = new Date(),
): OcspCheck {
  let basic: pkijs.BasicOCSPResponse;
  try {
    const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(responseDer));
    const status = response.responseStatus.valueBlock.valueDec;
    if (status !== 0) {
      return failedOcsp(
        `the responder answered ${['successful', 'malformedRequest', 'internalError', 'tryLater', '', 'sigRequired', 'unauthorized'][status] || `status ${status}`}`,
      );
    }
    if (!response.responseBytes || response.responseBytes.responseType !== OID.ocspBasic) {
      return failedOcsp('not a basic OCSP response');
    }
    basic = pkijs.BasicOCSPResponse.fromBER(
      toArrayBuffer(new Uint8Array(response.responseBytes.response.valueBlock.valueHexView)),
    );
  } catch (e) {
    return failedOcsp(`unreadable OCSP response: ${(e as Error).message}`);
  }
  const problems: string[] = [];
  const data = basic.tbsResponseData;
  const carried = (basic.certs ?? []).flatMap((c) => {
    try {
      return [certInfo(fromBufferSource(c.toSchema().toBER(false)))];
    } catch {
      return [];
    }
  });
  const responderId = data.responderID as pkijs.RelativeDistinguishedNames | asn1js.OctetString;
  const isResponder = (c: CertInfo): boolean =>
    responderId instanceof asn1js.OctetString
      ? equalBytes(new Uint8Array(responderId.valueBlock.valueHexView), digest('sha1', c.publicKeyBits))
      : responderId.isEqual(c.cert.subject);
  let responder: CertInfo | null = null;
  let delegated = false;
  if (isResponder(issuer)) responder = issuer;
  else {
    const candidate = carried.find(isResponder);
    if (!candidate) problems.push('the responder certificate is neither the issuer nor carried in the response');
    else if (!isIssuedBy(candidate, issuer)) {
      problems.push('the responder certificate was not issued by the certificate issuer');
    } else if (!extendedKeyUsage(candidate)?.purposes.includes(OID.kpOcspSigning)) {
      problems.push('the responder certificate lacks the OCSPSigning extended key usage');
    } else {
      responder = candidate;
      delegated = true;
      if (
        at.getTime() < Date.parse(candidate.x509.validFrom) - SKEW_MS ||
        at.getTime() > Date.parse(candidate.x509.validTo) + SKEW_MS
      ) {
        problems.push('the responder certificate is not valid now');
      }
    }
  }
  let signatureOk = false;
  if (responder) {
    const check = verifySignature(
      responder.publicKey,
      basic.signatureAlgorithm,
      undefined,
      new Uint8Array(data.tbsView),
      new Uint8Array(basic.signature.valueBlock.valueHexView),
    );
    signatureOk = check.ok;
    if (!check.ok) problems.push(`responder signature: ${check.reason ?? 'invalid'}`);
  }
  const single = data.responses.find((r) => certIdMatches(r.certID, cert, issuer));
  if (!single) {
    problems.push('the response does not cover the certificate');
    return {
      valid: false,
      status: null,
      producedAt: data.producedAt,
      thisUpdate: null,
      nextUpdate: null,
      revocationTime: null,
      revocationReason: null,
      responderCertificate: delegated ? responder!.der : null,
      problems,
    };
  }
  freshness(single.thisUpdate, single.nextUpdate, at, problems);
  const certStatus = single.certStatus as asn1js.BaseBlock;
  let status: RevocationStatus = 'unknown';
  let revocationTime: Date | null = null;
  let revocationReason: string | null = null;
  if (certStatus.idBlock.tagClass === 3 && certStatus.idBlock.tagNumber === 0) status = 'good';
  else if (certStatus.idBlock.tagClass === 3 && certStatus.idBlock.tagNumber === 1) {
    status = 'revoked';
    const parts = (certStatus as asn1js.Constructed).valueBlock.value;
    const time = parts[0];
    if (time instanceof asn1js.GeneralizedTime) revocationTime = time.toDate();
    const reason = parts[1] as asn1js.Constructed | undefined;
    const enumerated = reason?.valueBlock.value?.[0];
    if (enumerated instanceof asn1js.Enumerated) {
      revocationReason = REASONS[enumerated.valueBlock.valueDec] || `reason ${enumerated.valueBlock.valueDec}`;
    }
  }
  return {
    valid: signatureOk && problems.length === 0,
    status,
    producedAt: data.producedAt,
    thisUpdate: single.thisUpdate,
    nextUpdate: single.nextUpdate ?? null,
    revocationTime,
    revocationReason,
    responderCertificate: delegated ? responder!.der : null,
    problems,
  };
}

function failedCrl(problem: string): CrlCheck {
  return {
    valid: false,
    status: null,
    thisUpdate: null,
    nextUpdate: null,
    revocationTime: null,
    revocationReason: null,
    problems: [problem],
  };
}

/** DER bytes of a CRL given as DER or PEM. */
export function crlDer(bytes: Uint8Array): Uint8Array {
  if (looksLikePem(bytes)) return pemBlocks(Buffer.from(bytes).toString('latin1'), 'X509 CRL')[0] ?? bytes;
  return bytes;
}

/**
 * Checks a CRL (DER) for `cert` issued by `issuer` at `at`: names and is signed by the issuer
 * (direct CRLs only), fresh, and whether it lists the certificate. Never throws on bad input.
 */
export function checkCrl(crl: Uint8Array, cert: CertInfo, issuer: CertInfo, at: Date = new Date()): CrlCheck {
  let list: pkijs.CertificateRevocationList;
  try {
    list = pkijs.CertificateRevocationList.fromBER(toArrayBuffer(crlDer(crl)));
  } catch (e) {
    return failedCrl(`unreadable CRL: ${(e as Error).message}`);
  }
  const problems: string[] = [];
  if (!list.issuer.isEqual(issuer.cert.subject)) {
    problems.push('the CRL was not issued by the certificate issuer (indirect CRLs are not supported)');
  }
  const sig = verifySignature(
    issuer.publicKey,
    list.signatureAlgorithm,
    undefined,
    new Uint8Array(list.tbsView),
    new Uint8Array(list.signatureValue.valueBlock.valueHexView),
  );
  if (!sig.ok) problems.push(`CRL signature: ${sig.reason ?? 'invalid'}`);
  const thisUpdate = list.thisUpdate.value;
  const nextUpdate = list.nextUpdate?.value;
  freshness(thisUpdate, nextUpdate, at, problems);
  if (list.crlExtensions?.extensions.some((e) => e.extnID === '2.5.29.27' || e.extnID === '2.5.29.46')) {
    problems.push('delta CRLs are not supported');
  }
  const entry = list.revokedCertificates?.find(
    (r) => toHex(new Uint8Array(r.userCertificate.valueBlock.valueHexView)) === cert.serialHex,
  );
  let revocationReason: string | null = null;
  const reasonExt = entry?.crlEntryExtensions?.extensions.find((e) => e.extnID === '2.5.29.21');
  if (reasonExt) {
    const v = asn1js.fromBER(toArrayBuffer(new Uint8Array(reasonExt.extnValue.valueBlock.valueHexView))).result;
    if (v instanceof asn1js.Enumerated) {
      revocationReason = REASONS[v.valueBlock.valueDec] || `reason ${v.valueBlock.valueDec}`;
    }
  }
  return {
    valid: problems.length === 0,
    status: entry ? 'revoked' : 'good',
    thisUpdate,
    nextUpdate: nextUpdate ?? null,
    revocationTime: entry ? entry.revocationDate.value : null,
    revocationReason,
    problems,
  };
}

export interface CertificateNote {
  readonly subject: string;
  /** Hex serial number. */
  readonly serialNumber: string;
  /** Which chain(s) the certificate belongs to. */
  readonly roles: ('signer' | 'tsa' | 'ocsp-responder')[];
  /** Self-signed: no revocation data needed. */
  readonly root: boolean;
  /** The issuer was fetched via AIA caIssuers from this URL. */
  readonly issuerFetchedFrom: string | null;
  /**
   * Revocation status found: good / revoked / unknown (OCSP "unknown"), 'not-checked' for roots and
   * OCSP responders with id-pkix-ocsp-nocheck, 'unavailable' when nothing usable was found.
   */
  readonly status: RevocationStatus | 'not-checked' | 'unavailable';
  /** Where the status came from. */
  readonly source: 'ocsp' | 'crl' | 'supplied-ocsp' | 'supplied-crl' | null;
  readonly url: string | null;
  readonly revocationTime: Date | null;
  readonly revocationReason: string | null;
  /** What failed along the way (including fallbacks that then succeeded). */
  readonly problems: string[];
}

export interface ValidationData {
  /** DER certificates: both chains (as far as they could be built) and delegated OCSP responders. */
  readonly certs: Uint8Array[];
  /** DER OCSPResponse values, as fetched or supplied. */
  readonly ocsps: Uint8Array[];
  /** DER CRLs. */
  readonly crls: Uint8Array[];
  readonly notes: CertificateNote[];
}

export interface GatherValidationDataOptions {
  /** The signer chain: signer certificate first (DER). Missing issuers are fetched via AIA caIssuers. */
  readonly chain: readonly Uint8Array[];
  /** The TSA chain: TSA certificate first (e.g. TimestampResult.certificates). */
  readonly tsaChain?: readonly Uint8Array[];
  /** Validation data the caller already has; used instead of fetching when it covers a certificate. */
  readonly extra?: {
    readonly certs?: readonly Uint8Array[];
    readonly ocsps?: readonly Uint8Array[];
    readonly crls?: readonly Uint8Array[];
  };
  readonly transport: HttpTransport;
  /** Time to check freshness against (default: now). */
  readonly at?: Date;
  /** Use CRLs only (no OCSP). */
  readonly preferCrl?: boolean;
  /**
   * When true (the default), a non-root certificate without usable revocation data, or a chain
   * that cannot be completed, → MoharError('validation_data_unavailable'). Revoked certificates
   * are not an error here: their status is reported in `notes`.
   */
  readonly requireAll?: boolean;
}

/** Certificates from a caIssuers answer: PEM, a certs-only PKCS#7 (.p7c), or one DER certificate. */
export function parseFetchedCertificates(bytes: Uint8Array): Uint8Array[] {
  if (looksLikePem(bytes)) return pemBlocks(Buffer.from(bytes).toString('latin1'), 'CERTIFICATE');
  try {
    // A certs-only PKCS#7 (.p7c) is common for caIssuers.
    const ci = pkijs.ContentInfo.fromBER(toArrayBuffer(bytes));
    if (ci.contentType === OID.signedData) {
      const sd = new pkijs.SignedData({ schema: ci.content });
      return (sd.certificates ?? [])
        .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
        .map((c) => fromBufferSource(c.toSchema().toBER(false)));
    }
  } catch {
    // not PKCS#7: a plain DER certificate
  }
  return [bytes];
}
