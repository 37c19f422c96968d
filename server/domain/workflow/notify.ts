/**
 * Mail at each step of the workflow, queued in the state change's own transaction (the job runner sends
 * it later; a mail failure never blocks an act). Mailed links live MOHAR_SIGNING_LINK_TTL_DAYS, never past the
 * envelope's expiry (mail is read later than 15 minutes after it is sent); each replaces the recipient's earlier
 * links (link-lifetime.ts).
 */
import type { Kysely } from 'kysely';
import type { Database, EnvelopesTable, RecipientsTable } from '../../storage/schema.js';
import { queueMail, type MailAttachment } from '../../mail/outbox.js';
import {
  completionMail,
  declinedMail,
  expiryWarningMail,
  invitationMail,
  reminderMail,
  voidedMail,
  yourTurnMail,
  type RecipientAction,
} from '../../mail/templates.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { insertSession } from './sessions.js';
import { keptLinkExpiry } from './link-lifetime.js';
import { installationBox } from '../../seal/installation-box.js';

type Envelope = Pick<
  EnvelopesTable,
  'id' | 'account_id' | 'title' | 'message' | 'expires_at' | 'sent_at' | 'send_mail'
>;
type Recipient = Pick<RecipientsTable, 'id' | 'name' | 'email' | 'role'>;

/**
 * Whether Mohar mails the envelope's recipients: the envelope's own delivery (send_mail), set by its creator
 * (v1 create's delivery, the legacy is_mail_required, the sandbox: none). A test envelope's mail is queued like
 * any other and kept in the outbox, marked test, never delivered (mail/outbox.ts).
 */
function mailsRecipients(envelope: Envelope): boolean {
  return envelope.send_mail !== 0;
}

async function senderName(trx: Kysely<Database>, accountId: string): Promise<string> {
  return (await trx.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirstOrThrow()).name;
}

function actionOf(role: string): RecipientAction {
  return role === 'approver' ? 'approve' : role === 'reviewer' ? 'review' : 'sign';
}

/**
 * Invitation (first turn), your-turn (later turns), reminder or expiry-warning mail (automatic reminders,
 * auto-remind.ts; an outbox mail of kind reminder) with a personal signing link.
 */
export async function mailTurn(
  trx: Kysely<Database>,
  ctx: Context,
  envelope: Envelope,
  recipients: readonly Recipient[],
  kind: 'invitation' | 'your_turn' | 'reminder' | 'expiry_warning',
): Promise<void> {
  if (recipients.length === 0 || !mailsRecipients(envelope)) return;
  const now = ctx.now();
  const sender = await senderName(trx, envelope.account_id);
  // The body carries the signing link: it is stored sealed (issue 16, point 10).
  const sealWith = await installationBox(ctx.config);
  const expiresAt = keptLinkExpiry(ctx.config, envelope.expires_at, now);
  for (const r of recipients) {
    const signingUrl = await insertSession(trx, ctx.config.baseUrl, {
      envelopeId: envelope.id,
      recipientId: r.id,
      mode: 'email',
      origin: null,
      returnUrl: null,
      expiresAt,
      now,
      kind: 'mail',
    });
    // "The link works until": the link's own expiry (MOHAR_SIGNING_LINK_TTL_DAYS may end it before the envelope).
    const data = {
      envelopeTitle: envelope.title,
      recipientName: r.name,
      senderName: sender,
      signingUrl,
      action: actionOf(r.role),
      message: envelope.message,
      expiresAt: iso(expiresAt),
    };
    const content =
      kind === 'invitation'
        ? invitationMail(data)
        : kind === 'your_turn'
          ? yourTurnMail(data)
          : kind === 'expiry_warning' && envelope.expires_at
            ? expiryWarningMail({ ...data, sentAt: envelope.sent_at, envelopeExpiresAt: envelope.expires_at })
            : reminderMail({ ...data, sentAt: envelope.sent_at });
    const mailKind = kind === 'expiry_warning' ? 'reminder' : kind;
    await queueMail(
      trx,
      {
        accountId: envelope.account_id,
        to: r.email,
        toName: r.name,
        ...content,
        kind: mailKind,
        envelopeId: envelope.id,
        recipientId: r.id,
        sealWith,
        ...(kind === 'reminder' ? {} : { dedupeKey: `${kind}:${r.id}` }),
      },
      now,
    );
  }
}

/** The completed documents, attached, to every recipient including cc. */
export async function mailCompletion(
  trx: Kysely<Database>,
  ctx: Context,
  envelope: Envelope,
  recipients: readonly Recipient[],
  attachments: readonly MailAttachment[],
): Promise<void> {
  if (!mailsRecipients(envelope)) return;
  const sender = await senderName(trx, envelope.account_id);
  for (const r of recipients) {
    const content = completionMail({
      envelopeTitle: envelope.title,
      recipientName: r.name,
      senderName: sender,
      attachmentNames: attachments.map((a) => a.filename),
    });
    await queueMail(
      trx,
      {
        accountId: envelope.account_id,
        to: r.email,
        toName: r.name,
        ...content,
        kind: 'completion',
        envelopeId: envelope.id,
        recipientId: r.id,
        attachments,
        dedupeKey: `completion:${r.id}`,
      },
      ctx.now(),
    );
  }
}

/** A decline or a void, told to everyone else on the envelope. */
export async function mailStopped(
  trx: Kysely<Database>,
  ctx: Context,
  envelope: Envelope,
  recipients: readonly Recipient[],
  how: { kind: 'declined'; by: string; reason: string } | { kind: 'voided'; reason: string },
): Promise<void> {
  if (!mailsRecipients(envelope)) return;
  const sender = await senderName(trx, envelope.account_id);
  for (const r of recipients) {
    const base = { envelopeTitle: envelope.title, recipientName: r.name, senderName: sender };
    const content =
      how.kind === 'declined'
        ? declinedMail({ ...base, declinedBy: how.by, reason: how.reason })
        : voidedMail({ ...base, reason: how.reason });
    await queueMail(
      trx,
      {
        accountId: envelope.account_id,
        to: r.email,
        toName: r.name,
        ...content,
        kind: how.kind,
        envelopeId: envelope.id,
        recipientId: r.id,
        dedupeKey: `${how.kind}:${r.id}`,
      },
      ctx.now(),
    );
  }
}
