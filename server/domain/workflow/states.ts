/**
 * The states of an envelope and of its recipients, and the groups the workflow asks about. The unions are
 * the column types of storage/schema.ts (storage imports nothing of the domain), checked against the lists here.
 */
import type { EnvelopeStatus, RecipientStatus } from '../../storage/schema.js';

export type { EnvelopeStatus, RecipientStatus };

export const ENVELOPE_STATUSES = [
  'draft',
  'sent',
  'completed',
  'declined',
  'voided',
  'expired',
] as const satisfies readonly EnvelopeStatus[];

/** Nobody acts on an envelope in one of these any more. */
export const FINISHED_ENVELOPE_STATUSES: ReadonlySet<EnvelopeStatus> = new Set<EnvelopeStatus>([
  'completed',
  'declined',
  'voided',
  'expired',
]);

export const RECIPIENT_STATUSES = [
  'created',
  'waiting',
  'active',
  'viewed',
  'signed',
  'approved',
  'reviewed',
  'declined',
  'completed',
] as const satisfies readonly RecipientStatus[];

/** Every member of each union is listed (a new state must be added to its list, and its list's readers). */
type Unlisted =
  | Exclude<EnvelopeStatus, (typeof ENVELOPE_STATUSES)[number]>
  | Exclude<RecipientStatus, (typeof RECIPIENT_STATUSES)[number]>;
const EVERY_STATE_LISTED: [Unlisted] extends [never] ? true : never = true;
void EVERY_STATE_LISTED;
