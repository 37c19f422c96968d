/**
 * An admin invites a user by e-mail: the user exists at once as `invited` and gets a set-password link (72 h).
 * Without a mail server the mail is only kept in the outbox, so the answer then carries the link itself for the
 * admin to hand over (they could open the kept mail anyway); with one, the link goes only by mail.
 */
import { randomUUID } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { mailDeliveryConfigured } from '../../mail/transport-settings.js';
import { isUniqueViolation } from '../../storage/connect.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { recordAudit, type Actor } from './audit-log.js';
import { issueLink, queueUserMail, setPasswordUrl } from './links.js';
import type { Role } from './roles.js';
import { userOfAccount, type UserItem } from './users.js';

/** An invited user has no password: this is no scrypt hash, so no password ever matches it. */
export const NO_PASSWORD = '!';

export interface Invitation {
  readonly mail_id: string;
  /** queued: a mail server sends it; kept: no mail server is set, nothing was sent. */
  readonly mail_delivery: 'queued' | 'kept';
  /** The set-password link, only when the mail is kept. */
  readonly set_password_url: string | null;
}

export async function inviteUser(
  ctx: Context,
  accountId: string,
  input: { email: string; role: Role },
  actor: Actor,
): Promise<UserItem & { invitation: Invitation }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new MoharError('validation_failed', `not an e-mail address: ${input.email}`, {
      errors: [{ path: '/email', message: 'not an e-mail address' }],
    });
  }
  const now = ctx.now();
  const userId = randomUUID();
  const delivered = await mailDeliveryConfigured(ctx, accountId);
  const account = await ctx.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  let mail: { mailId: string; url: string };
  try {
    mail = await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('users')
        .values({
          id: userId,
          account_id: accountId,
          email,
          password_hash: NO_PASSWORD,
          role: input.role,
          locked_until: null,
          created_at: iso(now),
          status: 'invited',
          last_login_at: null,
        })
        .execute();
      const url = setPasswordUrl(ctx, await issueLink(trx, now, userId, 'invite'));
      const mailId = await queueUserMail(trx, now, {
        accountId,
        to: email,
        subject: `You are invited to ${account.name} on Mohar`,
        lines: [
          `${actor.email ?? 'An administrator'} invited you to the Mohar account “${account.name}” as ${input.role}.`,
          'Choose your password with the link below. It works once, for 72 hours.',
        ],
        url,
        button: 'Set your password',
      });
      await recordAudit(trx, now, {
        accountId,
        action: 'user_invited',
        actor,
        target: email,
        detail: { role: input.role },
      });
      return { mailId, url };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new MoharError('user_exists', `a user with e-mail ${email} exists already`, {
        errors: [{ path: '/email', message: 'taken' }],
      });
    }
    throw error;
  }
  const invitation: Invitation = {
    mail_id: mail.mailId,
    mail_delivery: delivered ? 'queued' : 'kept',
    set_password_url: delivered ? null : mail.url,
  };
  return { ...(await userOfAccount(ctx, accountId, userId)), invitation };
}
