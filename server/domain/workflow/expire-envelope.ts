/** The expiry job: an envelope still in progress at its expires_at becomes `expired`; nobody can act afterwards. */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { recordEvent } from './events.js';
import { envelopeSummary } from './summaries.js';

export async function expireEnvelope(ctx: Context, envelopeId: string): Promise<boolean> {
  const at = iso(ctx.now());
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await trx.selectFrom('envelopes').selectAll().where('id', '=', envelopeId).executeTakeFirst();
    if (!envelope || envelope.status !== 'sent' || !envelope.expires_at || envelope.expires_at > at) return false;
    await trx
      .updateTable('envelopes')
      .set({ status: 'expired', updated_at: at })
      .where('id', '=', envelopeId)
      .where('status', '=', 'sent')
      .execute();
    await recordEvent(
      trx,
      envelope.account_id,
      envelopeId,
      'envelope.expired',
      { envelope: envelopeSummary({ ...envelope, status: 'expired' }) },
      at,
    );
    return true;
  });
}
