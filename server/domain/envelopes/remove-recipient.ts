/** DELETE /envelopes/{id}/recipients/{recipient_id}: a recipient leaves a draft, with the fields placed for them. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findDraftEnvelope } from './find-envelope.js';
import { refreshSearch } from './search-index.js';
import { loadEnvelopeView, type EnvelopeView } from './views.js';
import { materializeLayout } from './field-rows.js';

export async function removeRecipient(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  recipientId: string,
): Promise<EnvelopeView> {
  await ctx.db.transaction().execute(async (trx) => {
    await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    await materializeLayout(trx, envelopeId);
    const recipient = await trx
      .selectFrom('recipients')
      .select('id')
      .where('id', '=', recipientId)
      .where('envelope_id', '=', envelopeId)
      .executeTakeFirst();
    if (!recipient) {
      throw new MoharError(
        'recipient_not_found',
        `recipient ${recipientId} is not a recipient of envelope ${envelopeId}`,
      );
    }
    await trx
      .deleteFrom('fields')
      .where('envelope_id', '=', envelopeId)
      .where('recipient_id', '=', recipientId)
      .execute();
    await trx.deleteFrom('recipients').where('id', '=', recipientId).execute();
    await trx
      .updateTable('envelopes')
      .set({ updated_at: iso(ctx.now()) })
      .where('id', '=', envelopeId)
      .execute();
    await refreshSearch(trx, envelopeId);
  });
  return loadEnvelopeView(ctx.db, envelopeId);
}
