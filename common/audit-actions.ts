/**
 * The actions Mohar writes into an envelope's audit trail ("noun.verb"): one list for the server (server/audit)
 * and the console, which words each in English and Hindi (a Record over EnvelopeAuditAction, so a new action
 * without words does not compile; test/renderer/timeline-words.test.ts checks the server writes no other).
 * A leaf module: it imports nothing.
 */
export const ENVELOPE_AUDIT_ACTIONS = [
  'envelope.created',
  'envelope.sent',
  'envelope.completed',
  'envelope.declined',
  'envelope.voided',
  'envelope.expired',
  'recipient.viewed',
  'recipient.consented',
  'recipient.signed',
  'recipient.approved',
  'recipient.reviewed',
  'recipient.declined',
  'recipient.links_revoked',
  'signing_session.created',
  'signing_link.created',
  'reminder.sent',
  'document.sealed',
  'certificate.issued',
  'legal_hold.placed',
  'legal_hold.released',
  'envelope.purged',
] as const;

export type EnvelopeAuditAction = (typeof ENVELOPE_AUDIT_ACTIONS)[number];
