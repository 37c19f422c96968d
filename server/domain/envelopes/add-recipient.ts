/** POST /envelopes/{id}/recipients: one more recipient on a draft. */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { checkDscLimits } from './dsc-rules.js';
import { findDraftEnvelope } from './find-envelope.js';
import type { RecipientInput, RoutingOrder } from './model.js';
import { normalizeRecipient } from './recipients.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';
import { refreshSearch } from './search-index.js';
import { recipientView, type RecipientView } from './views.js';

export async function addRecipient(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  input: RecipientInput,
): Promise<RecipientView> {
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    const existing = await trx
      .selectFrom('recipients')
      .select(['role', 'signature_method', 'sequence', 'position'])
      .where('envelope_id', '=', envelopeId)
      .execute();
    const documents = await trx
      .selectFrom('envelope_documents')
      .select('document_id')
      .where('envelope_id', '=', envelopeId)
      .execute();
    const at = iso(ctx.now());
    const position = existing.reduce((max, r) => Math.max(max, r.position), 0) + 1;
    const row = normalizeRecipient(input, envelope.routing_order as RoutingOrder, existing, envelopeId, position, at);
    assertAadhaarAvailable(ctx.config, [row], undefined, envelope.mode);
    checkDscLimits({ recipients: [...existing, row], documentCount: documents.length });
    await trx.insertInto('recipients').values(row).execute();
    await refreshSearch(trx, envelopeId);
    await trx.updateTable('envelopes').set({ updated_at: at }).where('id', '=', envelopeId).execute();
    return recipientView(row);
  });
}
