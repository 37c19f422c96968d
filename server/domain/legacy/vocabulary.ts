/** The legacy API's words for recipients and document states, and Mohar's envelope model behind them. */
import type { Role, SignatureMethod } from '../envelopes/model.js';
import { FINISHED_STATUSES, isActor } from '../workflow/routing.js';
import type { EnvelopeStatus, RecipientStatus } from '../workflow/states.js';

export const LEGACY_SIGNATURE_TYPES = ['E-Signature', 'aadhaar_digital_signature', 'Approver', 'Reviewer'] as const;
export type LegacySignatureType = (typeof LEGACY_SIGNATURE_TYPES)[number];

export const LEGACY_STATUSES = [
  'Uploaded',
  'Sent',
  'Partially signed',
  'Fully signed',
  'Rejected',
  'Cancelled',
] as const;
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

export function recipientModel(type: LegacySignatureType): { role: Role; signature_method: SignatureMethod } {
  switch (type) {
    case 'E-Signature':
      return { role: 'signer', signature_method: 'electronic' };
    case 'aadhaar_digital_signature':
      return { role: 'signer', signature_method: 'aadhaar' };
    case 'Approver':
      return { role: 'approver', signature_method: 'review' };
    case 'Reviewer':
      return { role: 'reviewer', signature_method: 'review' };
  }
}

/** The legacy word for a recipient; USB DSC signers and cc (possible only through v1) get names of their own. */
export function signatureTypeOf(role: string, method: string): string {
  if (role === 'approver') return 'Approver';
  if (role === 'reviewer') return 'Reviewer';
  if (role === 'cc') return 'CC';
  if (method === 'aadhaar') return 'aadhaar_digital_signature';
  if (method === 'dsc') return 'dsc_signature';
  return 'E-Signature';
}

/** signingCapacity: the part the recipient plays. */
export function capacityOf(role: string): string {
  return role === 'approver' ? 'Approver' : role === 'reviewer' ? 'Reviewer' : role === 'cc' ? 'CC' : 'Signer';
}

/** The status word of a document: from the envelope's state and whether anyone has acted yet. */
export function legacyStatus(
  envelopeStatus: EnvelopeStatus,
  recipients: readonly { role: string; status: RecipientStatus }[],
): LegacyStatus {
  switch (envelopeStatus) {
    case 'draft':
      return 'Uploaded';
    case 'completed':
      return 'Fully signed';
    case 'declined':
      return 'Rejected';
    case 'voided':
    case 'expired':
      return 'Cancelled';
    default:
      return recipients.some((r) => isActor(r) && FINISHED_STATUSES.has(r.status)) ? 'Partially signed' : 'Sent';
  }
}
