/**
 * POST /bulk-sends/{id}/cancel: rows without an envelope are canceled; rows whose envelope exists go
 * on (they are ordinary envelopes: void them one by one if needed). A chunk already creating a row's
 * envelope at this moment finishes that row (process-row.ts re-reads the row just before creating).
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findBulkSend, getBulkSend } from './read-bulk-sends.js';

export async function cancelBulkSend(ctx: Context, accountId: string, id: string) {
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const batch = await findBulkSend(trx, accountId, id, ctx.mode);
    if (batch.status !== 'queued' && batch.status !== 'running') {
      throw new MoharError('bulk_send_finished', `the bulk send is ${batch.status} already`);
    }
    await trx
      .updateTable('bulk_sends')
      .set({ status: 'canceled', canceled_at: at, updated_at: at })
      .where('id', '=', id)
      .execute();
    await trx
      .updateTable('bulk_send_rows')
      .set({ status: 'canceled', updated_at: at })
      .where('bulk_send_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  });
  return getBulkSend(ctx, accountId, id);
}
