/**
 * Public API of pdf/, Mohar's PDF and PAdES library: a pure library over bytes (no I/O, no HTTP). Code outside
 * pdf/ imports from here only (eslint.config.js forbids deep imports, as for native/); the folders' own index
 * files (cms/, verify/) are internal groupings. The headline calls:
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
export { signPades, PADES_LEVELS, type PadesTarget, type PadesOptions, type PadesResult } from './sign/pades.js';
export { inspectPdf, type PdfInfo, type PageGeometry } from './inspect.js';
export { DEFAULT_PDF_LIMITS, resolveLimits, type PdfLimits } from './limits.js';
export { PdfReader } from './document.js';
export { getPages, readBox, normalizeRotation, type PageInfo, type Box, type Rotation } from './pages.js';
export {
  visibleBox,
  visiblePageSize,
  viewRectToUserSpace,
  userSpaceRectToView,
  viewToUser,
  userToView,
  rectFitsPage,
  type Rect,
  type PageBoxes,
} from './geometry.js';
export {
  listSignatureFields,
  docMdpPermission,
  type SignatureFieldInfo,
  type SignatureWidgetInfo,
  type ObjectId,
} from './acroform.js';
export { listFormFieldNames } from './form-fields.js';
export {
  readFieldLock,
  readReferenceLocks,
  isFieldLocked,
  describeFieldLock,
  sigFieldLockDict,
  fieldMdpReference,
  type FieldLock,
} from './field-lock.js';
export {
  PdfName,
  PdfRef,
  PdfString,
  PdfArray,
  PdfDict,
  PdfStream,
  asDict,
  isName,
  isInteger,
  type PdfObject,
  type IndirectObject,
} from './objects.js';
export { Lexer, type Token } from './lexer.js';
export { Parser, type ParserOptions } from './parser.js';
export { decodeFilters, filterSpecs, applyPredictor, inflate, type FilterSpec, type OutputLimit } from './filters.js';
export type { XrefEntry, XrefInfo, XrefKind, XrefSection } from './xref.js';
export type { RevisionMark } from './xref-repair.js';
export { IncrementalUpdate, assertPrefix, type UpdateResult, type SectionKind } from './write/incremental.js';
export { serializeObject, formatNumber, formatName, makeStream } from './write/serialize.js';
export { textString, pdfDate, isoFromPdfDate, displayDate, toWinAnsi, transliterateDevanagari } from './write/text.js';
export { imageXObject, type ImageXObject } from './write/image.js';
export { fitPng, type FittedImage } from './write/image-fit.js';
export { newTextDocument, type Block, type NewDocumentOptions } from './write/new-document.js';
export {
  prepareSignature,
  prepareDocumentTimestamp,
  embedSignature,
  byteRangeDigest,
  byteRangeData,
  RESERVE_DEFAULT,
  RESERVE_WITH_TIMESTAMP,
  RESERVE_DOC_TIMESTAMP,
  type PrepareOptions,
  type DocumentTimestampOptions,
  type PreparedSignature,
  type SignatureFieldChoice,
  type DocMdpLevel,
} from './sign/prepare.js';
export { signPdf, timestampPdf, type SignCallback, type SignedPdf } from './sign/sign-pdf.js';
export { fieldsNotLocked, existingLocks } from './sign/lock-appearances.js';
export { checkSignable } from './sign/checks.js';
export type { SignatureAppearance } from './sign/appearance.js';
export { appendDss, vriKey, type DssInput, type DssResult, type DssValidationData, type VriEntry } from './sign/dss.js';
export {
  prepareForm,
  moharFieldName,
  sanitizePartialName,
  radioLayout,
  FIELD_TYPES,
  type FormFieldLayout,
  type PreparedForm,
  type PreparedFormField,
} from './prepare/prepare-form.js';
export { fillForm, type FormValues, type FieldImage } from './prepare/fill-form.js';
export { addTestMark, TEST_MARK_TEXT } from './prepare/test-mark.js';
export {
  verifyPdf,
  formatReport,
  judgeAppendedRevision,
  type VerifyReport,
  type SignatureReport,
  type PadesLevel,
  type ChangeClass,
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
