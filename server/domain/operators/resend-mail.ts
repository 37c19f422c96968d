/**
 * Operators: send a kept or failed outbox mail again. Kept mails were never sent because no SMTP server was
 * set; once one is (MOHAR_SMTP_URL, or the account's mail server saved in the console: mail/transport-settings.ts),
 * the mail goes back to `queued` with a fresh `mail.send` job, which sends it through that server. Without one
 * this refuses (the job would only keep the mail again).
 */
import { MoharError } from '../../../common/errors.js';
import { enqueue } from '../../jobs/definition.js';
import { MAIL_SEND_JOB } from '../../mail/outbox.js';
import { mailDeliveryConfigured } from '../../mail/transport-settings.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

export interface ResentMail {
  id: string;
  status: 'queued';
  job_id: string;
}

export async function resendMail(ctx: Context, accountId: string, mailId: string): Promise<ResentMail> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('outbox_mail')
      .select(['status'])
      .where('id', '=', mailId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw new MoharError('mail_not_found', `no mail ${mailId} in this account's outbox`);
    // After the lookup, so an unknown mail id is 404 whether or not SMTP is set.
    if (!(await mailDeliveryConfigured({ db: trx, config: ctx.config }, accountId))) {
      throw new MoharError(
        'smtp_not_configured',
        'no mail server is set (neither MOHAR_SMTP_URL nor the mail settings in the console), so the mail would only be kept again; set one up, then send it again',
      );
    }
    if (row.status !== 'kept' && row.status !== 'failed') {
      throw new MoharError(
        'mail_not_resendable',
        `only kept or failed mails can be sent again; this one is ${row.status}`,
      );
    }
    const now = ctx.now();
    // Guarded by the state read above: a concurrent resend moves the row first and this one changes nothing.
    const moved = await trx
      .updateTable('outbox_mail')
      .set({ status: 'queued', last_error: null, updated_at: iso(now) })
      .where('id', '=', mailId)
      .where('status', '=', row.status)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new MoharError('mail_not_resendable', 'the mail changed meanwhile; look again');
    }
    const jobId = await enqueue(trx, MAIL_SEND_JOB, { mail_id: mailId }, { accountId, now });
    return { id: mailId, status: 'queued' as const, job_id: jobId };
  });
}
