/**
 * The two audit vocabularies, one home each: what Mohar writes into an envelope's hash-chained trail
 * (server/audit) and into an account's audit log (server/domain/users/audit-log.ts). The console words every
 * action of both in English and Hindi, keyed by these types, so a new action without words does not compile
 * (test/renderer/timeline-words.test.ts also checks the server writes no envelope action outside the list).
 * Imports only the event list (common/events.ts); a leaf otherwise.
 */
import { ENVELOPE_EVENT_TYPES } from './events.js';

/**
 * An envelope's trail ("noun.verb"): every envelope event (recordEvent writes each as an audit row too) and the
 * acts and facts recorded only in the trail.
 */
export const ENVELOPE_AUDIT_ACTIONS = [
  ...ENVELOPE_EVENT_TYPES,
  'recipient.consented',
  'recipient.links_revoked',
  'signing_session.created',
  'signing_link.created',
  'reminder.sent',
  'document.sealed',
  'certificate.issued',
  'legal_hold.placed',
  'legal_hold.released',
] as const;
export type EnvelopeAuditAction = (typeof ENVELOPE_AUDIT_ACTIONS)[number];

/** An account's audit log: who did what to the account (logins, users, keys, settings). */
// prettier-ignore
export const ACCOUNT_AUDIT_ACTIONS = [
  'login', 'login_failed', 'user_invited', 'role_changed', 'user_deactivated', 'password_set', 'password_changed',
  'password_reset_requested', 'user_unlocked', 'api_key_rotated', 'webhook_changed', 'mail_settings_changed',
  'retention_changed',
] as const;
export type AccountAuditAction = (typeof ACCOUNT_AUDIT_ACTIONS)[number];
