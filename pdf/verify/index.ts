export { verifyPdf, type VerifyReport, type SignatureReport, type PadesLevel, type SignerSummary } from './verify.js';
export { formatReport } from './text.js';
export { RevisionChanges, type ChangeReport } from './changes.js';
export { worstClass, summariseClass, allowedByDocMdp, type ChangeClass, type ChangedObject } from './change-class.js';
export { analyseRevision } from './diff.js';
export { judgeAppendedRevision, allowedBy, type RevisionPolicy, type RevisionJudgement } from './judge.js';
