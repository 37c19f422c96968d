/** The envelope audit trail: a hash chain per envelope, its verification, and the certificate of completion. */
export { ACTOR_TYPES, GENESIS_HASH, canonicalJson, hashAuditRow, hashInput, verifyAuditChain } from './chain.js';
export type { ActorType, AuditRow, ChainAnchor, ChainProblem, ChainReport } from './chain.js';
export {
  appendAudit,
  auditEventView,
  firstAuditRow,
  auditedEnvelopeIds,
  listAudit,
  verifyEnvelopeAudit,
} from './store.js';
export type { AuditEntry, AuditEventView } from './store.js';
export {
  AUDIT_ATTACHMENT,
  auditAttachment,
  certificateBlocks,
  certificateDocument,
  createCompletionCertificate,
  loadCertificateInput,
} from './certificate.js';
export type {
  CertificateDocument,
  CertificateInput,
  CertificateLayoutOptions,
  CertificateOptions,
  CertificateRecipient,
  CompletionCertificate,
  LoadCertificateOptions,
} from './certificate.js';
