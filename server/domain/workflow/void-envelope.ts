/** POST /envelopes/{id}/void: stops a draft or an envelope in progress; nobody can act on it afterwards. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { envelopeStatus, type EnvelopeStatusView } from '../envelopes/envelope-status.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { recordEvent } from './events.js';
import { envelopeSummary } from './summaries.js';
import { mailStopped } from './notify.js';
import { FINISHED_ENVELOPE_STATUSES } from './states.js';

export async function voidEnvelope(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  reason: string,
): Promise<EnvelopeStatusView> {
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const envelope = await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    if (FINISHED_ENVELOPE_STATUSES.has(envelope.status)) {
      throw new MoharError('envelope_finished', `the envelope is ${envelope.status} already`, {
        extra: { envelope_status: envelope.status },
      });
    }
    const moved = await trx
      .updateTable('envelopes')
      .set({ status: 'voided', status_reason: reason, updated_at: at })
      .where('id', '=', envelopeId)
      .where('status', '=', envelope.status)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new MoharError('envelope_finished', 'the envelope changed meanwhile; fetch it and try again');
    }
    if (envelope.status === 'sent') {
      const recipients = await trx.selectFrom('recipients').selectAll().where('envelope_id', '=', envelopeId).execute();
      await mailStopped(trx, ctx, envelope, recipients, { kind: 'voided', reason });
    }
    await recordEvent(
      trx,
      accountId,
      envelopeId,
      'envelope.voided',
      { envelope: envelopeSummary({ ...envelope, status: 'voided' }), reason },
      at,
      { type: 'api_key', details: { reason } },
    );
  });
  return envelopeStatus(ctx, accountId, envelopeId);
}
