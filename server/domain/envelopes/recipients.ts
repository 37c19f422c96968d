/** Recipient defaults and checks shared by envelope creation and "add recipient". */
import { MoharError } from '../../../common/errors.js';
import type { RecipientsTable } from '../../storage/schema.js';
import { newId } from '../ids.js';
import { DRAFT_RECIPIENT_STATUS, type RecipientInput, type RoutingOrder } from './model.js';

export function normalizeRecipient(
  input: RecipientInput,
  routing: RoutingOrder,
  previous: readonly { sequence: number }[],
  envelopeId: string,
  position: number,
  createdAt: string,
  index?: number,
): RecipientsTable {
  const role = input.role ?? 'signer';
  const method = input.signature_method ?? (role === 'signer' ? 'electronic' : 'review');
  const path = index === undefined ? '' : `/recipients/${index}`;
  if (role === 'signer' && method === 'review') {
    throw new MoharError(
      'validation_failed',
      `${path || 'recipient'}: a signer signs by electronic, aadhaar or dsc, not review`,
      {
        errors: [{ path: `${path}/signature_method`, message: 'a signer signs by electronic, aadhaar or dsc' }],
      },
    );
  }
  if (role !== 'signer' && (method === 'dsc' || method === 'aadhaar')) {
    throw new MoharError(
      'validation_failed',
      `${path || 'recipient'}: a ${role} does not sign; use signature_method review or electronic`,
      {
        errors: [{ path: `${path}/signature_method`, message: `a ${role} cannot use ${method}` }],
      },
    );
  }
  // Sequential routing without explicit sequences follows the order of the list.
  const lastSequence = previous.reduce((max, r) => Math.max(max, r.sequence), 0);
  const sequence = input.sequence ?? (routing === 'sequential' ? lastSequence + 1 : 1);
  return {
    id: newId(),
    envelope_id: envelopeId,
    name: input.name.trim(),
    email: input.email.trim().toLowerCase(),
    role,
    signature_method: method,
    sequence,
    status: DRAFT_RECIPIENT_STATUS,
    position,
    created_at: createdAt,
    viewed_at: null,
    acted_at: null,
    decline_reason: null,
    act_details: null,
    reminded_at: null,
    prepared_sha256: null,
  };
}
