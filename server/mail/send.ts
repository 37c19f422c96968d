/**
 * The `mail.send` job: sends one outbox row over SMTP and marks it `sent`. Which server, and which From, is
 * asked per mail of transport-settings.ts (the environment's MOHAR_SMTP_URL, else the account's saved mail
 * server), so a server saved in the console applies to the next mail without a restart. A failed send records
 * attempts and last_error on the row and throws, so the job table retries it with backoff; after the last
 * attempt the row is `failed` (and the job dead). Without any mail server the row becomes `kept`: nothing is
 * lost, it stays in the outbox listing.
 *
 * At least once: the Message-ID is derived from the outbox id, so if a crash between the SMTP
 * server's acceptance and the `sent` mark makes the job run again, the second copy carries the
 * same Message-ID and mail clients can fold the two.
 */
import type { BlobStore } from '../storage/blobs.js';
import { describeError } from '../jobs/queue.js';
import { defineJob, type JobPayload } from '../jobs/definition.js';
import { PermanentJobError, type JobRunInfo } from '../jobs/runner.js';
import { installationBox } from '../seal/installation-box.js';
import { MAIL_SEND_JOB, mailBody, parseAttachments } from './outbox.js';
import { smtpTransportFor, type MailTransportTimeouts } from './smtp-client.js';
import { mailTransportFor, type MailSender, type TransportContext } from './transport-settings.js';

export type { MailTransportTimeouts } from './smtp-client.js';

/** What sending a mail needs (the domain's Context is one; mail/ stays below the domain). */
export interface MailContext extends TransportContext {
  readonly blobs: BlobStore;
  readonly now: () => Date;
}

/** What the `mail.send` job runs on: a MailContext (a Context is one), and SMTP timeouts tests may shorten. */
export type MailJobDeps = MailContext & { readonly mailTimeouts?: MailTransportTimeouts };

export function messageIdDomain(from: MailSender): string {
  const domain = from.address.split('@')[1]?.trim();
  return domain && /^[A-Za-z0-9.-]+$/.test(domain) ? domain : 'mohar.invalid';
}

/** nodemailer's From: an object, so that a display name with commas or quotes is encoded, not parsed. */
export function fromHeader(from: MailSender): string | { name: string; address: string } {
  return from.name === null ? from.address : { name: from.name, address: from.address };
}

/** The `mail.send` job, for the runner's list (server/start.ts). */
export const mailSendJob = defineJob(MAIL_SEND_JOB, sendOutboxMail);

async function sendOutboxMail(
  ctx: MailJobDeps,
  { mail_id: mailId }: JobPayload<typeof MAIL_SEND_JOB>,
  info: JobRunInfo,
): Promise<void> {
  const row = await ctx.db.selectFrom('outbox_mail').selectAll().where('id', '=', mailId).executeTakeFirst();
  if (!row) throw new PermanentJobError(`outbox mail ${mailId} does not exist`);
  // Already settled (a repeated run after a crash, or a kept mail): nothing to do.
  if (row.status === 'sent' || row.status === 'kept') return;

  const recordFailure = async (error: unknown): Promise<never> => {
    const at = ctx.now().toISOString();
    await ctx.db
      .updateTable('outbox_mail')
      .set({
        attempts: info.attempt,
        last_error: describeError(error),
        status: info.final ? 'failed' : 'queued',
        updated_at: at,
      })
      .where('id', '=', mailId)
      .execute();
    throw error;
  };

  // A saved password that cannot be opened (another secret key) is a failure of this mail, shown on its row.
  const choice = await mailTransportFor(ctx, row.account_id).catch(recordFailure);
  // A test envelope's mail (outbox.ts) never leaves: it stays in the outbox, kept, like mail without SMTP.
  if (choice.source === 'none' || row.test === 1) {
    const at = ctx.now().toISOString();
    await ctx.db
      .updateTable('outbox_mail')
      .set({ status: 'kept', updated_at: at })
      .where('id', '=', mailId)
      .where('status', 'in', ['queued', 'failed'])
      .execute();
    return;
  }

  const messageId = `<${mailId}@${messageIdDomain(choice.from)}>`;
  try {
    const transport = await smtpTransportFor(choice, ctx.config, ctx.mailTimeouts ?? {});
    // A body with a signing link is stored sealed (issue 16, point 10): opened here, only to be sent.
    const body = mailBody(row, row.sealed === 1 ? await installationBox(ctx.config) : undefined);
    const attachments = await Promise.all(
      parseAttachments(row.attachments).map(async (a) => ({
        filename: a.filename,
        contentType: a.content_type,
        content: await ctx.blobs.get(a.sha256),
      })),
    );
    await transport.sendMail({
      from: fromHeader(choice.from),
      to: row.to_name ? { name: row.to_name, address: row.to_address } : row.to_address,
      subject: row.subject,
      text: body.text,
      ...(body.html === null ? {} : { html: body.html }),
      attachments,
      messageId,
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
  } catch (error) {
    await recordFailure(error);
  }
  const at = ctx.now().toISOString();
  await ctx.db
    .updateTable('outbox_mail')
    .set({ status: 'sent', attempts: info.attempt, sent_at: at, updated_at: at, message_id: messageId })
    .where('id', '=', mailId)
    .execute();
}
