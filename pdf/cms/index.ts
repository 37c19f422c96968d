/**
 * pdf/cms: the cryptographic part of PAdES. Pure: no HTTP of its own, all I/O through the ports
 * in pdf/ports.ts (SignatureProvider, HttpTransport).
 *
 * Error codes: invalid_signature_data (malformed CMS or certificate), tsa_unavailable,
 * validation_data_unavailable, signing_key_invalid (unreadable software key, or a signature that
 * does not verify with the signer certificate).
 */
export { createSignedData, buildSignedAttributes, assembleSignedData, signingCertificateV2 } from './signed-data.js';
export type { CreateSignedDataOptions, AssembleOptions, KeyType } from './signed-data.js';
export { softwareSigner } from './software-signer.js';
export type { SoftwareSignerOptions } from './software-signer.js';
export {
  requestTimestamp,
  requestDocumentTimestamp,
  addSignatureTimestamp,
  addUnsignedAttribute,
  signatureValueOf,
  checkTimestampToken,
} from './timestamp.js';
export type { TimestampResult, TimestampTokenCheck, TimestampExpectation } from './timestamp.js';
export { checkOcspResponse, checkCrl, buildOcspRequest, parseFetchedCertificates } from './validation-data.js';
export { gatherValidationData } from './gather-validation-data.js';
export { buildCertificatePath, judgeCertificatePath, keyUsageAllowsSigning } from './chain.js';
export type { CertificatePath, PathJudgement, PathProblem } from './chain.js';
export type {
  ValidationData,
  CertificateNote,
  GatherValidationDataOptions,
  OcspCheck,
  CrlCheck,
  RevocationStatus,
} from './validation-data.js';
export { inspectCms } from './inspect.js';
export type { CmsInspection, InspectCmsOptions } from './inspect.js';
export type { EssCheck } from './signer-info.js';
export { certInfo, policyOids, subjectValues } from './x509.js';
export type { CertInfo } from './x509.js';
export { OID } from './oids.js';
