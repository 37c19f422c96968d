/** POST /envelopes/{id}/remind: mail active recipients again, at most once per recipient per hour. */
import { MoharError } from '../../../common/errors.js';
import { appendAudit } from '../../audit/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { mailTurn } from './notify.js';
import { ACTIVE_STATUSES } from './routing.js';

export const REMIND_INTERVAL_SECONDS = 3600;

export interface RemindResult {
  reminded: { recipient_id: string; email: string }[];
  skipped: { recipient_id: string; email: string; reason: 'reminded_recently'; next_reminder_at: string }[];
}

export async function remindRecipients(ctx: Context, accountId: string, envelopeId: string): Promise<RemindResult> {
  const now = ctx.now();
  const at = iso(now);
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    if (envelope.status !== 'sent') {
      throw new MoharError(
        'envelope_not_in_progress',
        `only an envelope in progress can be reminded; this one is ${envelope.status}`,
        { extra: { envelope_status: envelope.status } },
      );
    }
    const active = (
      await trx.selectFrom('recipients').selectAll().where('envelope_id', '=', envelopeId).orderBy('position').execute()
    ).filter((r) => ACTIVE_STATUSES.has(r.status));
    const result: RemindResult = { reminded: [], skipped: [] };
    const due = [];
    for (const r of active) {
      const last = r.reminded_at ? new Date(r.reminded_at).getTime() : 0;
      if (now.getTime() - last < REMIND_INTERVAL_SECONDS * 1000) {
        result.skipped.push({
          recipient_id: r.id,
          email: r.email,
          reason: 'reminded_recently',
          next_reminder_at: iso(new Date(last + REMIND_INTERVAL_SECONDS * 1000)),
        });
      } else {
        due.push(r);
        result.reminded.push({ recipient_id: r.id, email: r.email });
      }
    }
    for (const r of due) await trx.updateTable('recipients').set({ reminded_at: at }).where('id', '=', r.id).execute();
    await mailTurn(trx, ctx, envelope, due, 'reminder');
    if (due.length > 0) {
      await appendAudit(trx, {
        envelopeId,
        accountId,
        actorType: 'api_key',
        action: 'reminder.sent',
        details: { recipients: due.map((r) => r.id) },
        at,
      });
    }
    return result;
  });
}
