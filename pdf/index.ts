/**
 * Public API of pdf/, Mohar's PDF and PAdES library: a pure library over bytes (no I/O, no HTTP). Code outside
 * pdf/ imports from here only (eslint.config.js forbids deep imports, as for native/); the folders' own index
 * files (cms/, verify/) are internal groupings. It exports what those callers use and nothing more; tests of the
 * internals (test/pdf/) import the modules themselves. The headline calls:
 *
 *   inspectPdf(bytes, limits?)                what a PDF is: pages, signature fields, revisions
 *   prepareForm(bytes, fields) / fillForm     envelope fields as AcroForm fields, and their values
 *   signPades(bytes, signer, options)         one PAdES signature, B-B to B-LTA
 *   verifyPdf(bytes)                          every signature's report
 *
 * The outside world comes in through the ports (ports.ts): a SignatureProvider that signs, an HttpTransport
 * for the TSA, OCSP and CRL fetches.
 */
export type { SignatureProvider, HttpTransport } from './ports.js';
export { signPades, PADES_LEVELS, type PadesTarget, type PadesOptions } from './sign/pades.js';
export { inspectPdf, type PdfInfo } from './inspect.js';
export type { PdfLimits } from './limits.js';
export { PdfReader } from './document.js';
export { getPages } from './pages.js';
export { listSignatureFields } from './acroform.js';
export { listFormFieldNames } from './form-fields.js';
export { isFieldLocked, type FieldLock } from './field-lock.js';
export { assertPrefix } from './write/incremental.js';
export { isoFromPdfDate, displayDate } from './write/text.js';
export { fitPng } from './write/image-fit.js';
export { newTextDocument, type Block } from './write/new-document.js';
export {
  prepareSignature,
  embedSignature,
  RESERVE_WITH_TIMESTAMP,
  type PrepareOptions,
  type PreparedSignature,
  type SignatureFieldChoice,
} from './sign/prepare.js';
export { timestampPdf } from './sign/sign-pdf.js';
export { fieldsNotLocked } from './sign/lock-appearances.js';
export { checkSignable } from './sign/checks.js';
export type { SignatureAppearance } from './sign/appearance.js';
export { appendDss } from './sign/dss.js';
export { prepareForm, moharFieldName, type FormFieldLayout } from './prepare/prepare-form.js';
export { fillForm, type FormValues, type FieldImage } from './prepare/fill-form.js';
export { addTestMark } from './prepare/test-mark.js';
export {
  verifyPdf,
  formatReport,
  judgeAppendedRevision,
  type VerifyReport,
  type SignatureReport,
  type PadesLevel,
  type ChangedObject,
  type RevisionPolicy,
  type RevisionJudgement,
} from './verify/index.js';
// CMS and certificates (cms/): signatures, timestamps, validation data, certificate paths.
export {
  createSignedData,
  softwareSigner,
  addSignatureTimestamp,
  requestDocumentTimestamp,
  gatherValidationData,
  parseFetchedCertificates,
  buildCertificatePath,
  judgeCertificatePath,
  inspectCms,
  certInfo,
  OID,
  type CertInfo,
  type CertificateNote,
  type CertificatePath,
  type PathProblem,
  type CmsInspection,
  type GatherValidationDataOptions,
  type ValidationData,
} from './cms/index.js';
export { accessUrls, crlUrls, policyOids, subjectValues } from './cms/x509.js';
