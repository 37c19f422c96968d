export { verifyPdf, type VerifyReport, type SignatureReport, type PadesLevel, type SignerSummary } from './verify.js';
export { formatReport } from './text.js';
export { changesAfter, type ChangeKind, type ChangedObject } from './changes.js';
