/**
 * PATCH /envelopes/{id}/recipients/{recipient_id}: change a recipient of a draft (merge patch: members
 * present replace). The recipient rules of POST …/recipients hold, the DSC limits hold, and the fields
 * already placed for the envelope must still pass the fields endpoint's rules (layout-recheck.ts).
 */
import { MoharError } from '../../../common/errors.js';
import type { RecipientsTable } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { checkDscLimits } from './dsc-rules.js';
import { findDraftEnvelope } from './find-envelope.js';
import { recheckLayouts } from './layout-recheck.js';
import type { RecipientInput, RoutingOrder } from './model.js';
import { normalizeRecipient } from './recipients.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';
import { refreshSearch } from './search-index.js';
import { recipientView, type RecipientView } from './views.js';

export type RecipientPatch = Partial<RecipientInput>;

/** Roles that may keep a signature method; anything else falls back to the role's default. */
function keepsMethod(role: string, method: string): boolean {
  if (role === 'signer') return method !== 'review';
  return method === 'review' || method === 'electronic';
}

export async function updateRecipient(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  recipientId: string,
  patch: RecipientPatch,
): Promise<RecipientView> {
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    const recipients = await trx
      .selectFrom('recipients')
      .selectAll()
      .where('envelope_id', '=', envelopeId)
      .orderBy('position')
      .execute();
    const current = recipients.find((r) => r.id === recipientId);
    if (!current) {
      throw new MoharError(
        'recipient_not_found',
        `recipient ${recipientId} is not a recipient of envelope ${envelopeId}`,
      );
    }
    const role = patch.role ?? current.role;
    // A new role without a method keeps the old method when the role allows it (signer -> approver keeps electronic).
    const method =
      patch.signature_method ?? (keepsMethod(role, current.signature_method) ? current.signature_method : undefined);
    const input = {
      name: patch.name ?? current.name,
      email: patch.email ?? current.email,
      role,
      signature_method: method,
      sequence: patch.sequence ?? current.sequence,
    } as RecipientInput;
    const normalized = normalizeRecipient(
      input,
      envelope.routing_order as RoutingOrder,
      [],
      envelopeId,
      current.position,
      current.created_at,
    );
    if (normalized.signature_method !== current.signature_method) {
      assertAadhaarAvailable(ctx.config, [normalized], undefined, envelope.mode);
    }
    const updated: RecipientsTable = {
      ...current,
      name: normalized.name,
      email: normalized.email,
      role: normalized.role,
      signature_method: normalized.signature_method,
      sequence: normalized.sequence,
    };
    const all = recipients.map((r) => (r.id === recipientId ? updated : r));
    const documents = await trx
      .selectFrom('envelope_documents')
      .select('document_id')
      .where('envelope_id', '=', envelopeId)
      .execute();
    checkDscLimits({ recipients: all, documentCount: documents.length });
    await recheckLayouts(trx, envelopeId, all);
    await trx
      .updateTable('recipients')
      .set({
        name: updated.name,
        email: updated.email,
        role: updated.role,
        signature_method: updated.signature_method,
        sequence: updated.sequence,
      })
      .where('id', '=', recipientId)
      .execute();
    await trx
      .updateTable('envelopes')
      .set({ updated_at: iso(ctx.now()) })
      .where('id', '=', envelopeId)
      .execute();
    if (patch.name !== undefined || patch.email !== undefined) await refreshSearch(trx, envelopeId);
    return recipientView(updated);
  });
}
