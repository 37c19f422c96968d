/** An admin invites a user by e-mail: the user exists at once as `invited` and gets a set-password link (72 h). */
import { randomUUID } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { isUniqueViolation } from '../../storage/connect.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { recordAudit, type Actor } from './audit-log.js';
import { issueLink, queueUserMail, setPasswordUrl } from './links.js';
import type { Role } from './roles.js';
import { userOfAccount, type UserItem } from './users.js';

/** An invited user has no password: this is no scrypt hash, so no password ever matches it. */
export const NO_PASSWORD = '!';

export async function inviteUser(
  ctx: Context,
  accountId: string,
  input: { email: string; role: Role },
  actor: Actor,
): Promise<UserItem> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new MoharError('validation_failed', `not an e-mail address: ${input.email}`, {
      errors: [{ path: '/email', message: 'not an e-mail address' }],
    });
  }
  const now = ctx.now();
  const userId = randomUUID();
  const account = await ctx.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  try {
    await ctx.db.transaction().execute(async (trx) => {
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
      const token = await issueLink(trx, now, userId, 'invite');
      await queueUserMail(trx, now, {
        accountId,
        to: email,
        subject: `You are invited to ${account.name} on Mohar`,
        lines: [
          `${actor.email ?? 'An administrator'} invited you to the Mohar account “${account.name}” as ${input.role}.`,
          'Choose your password with the link below. It works once, for 72 hours.',
        ],
        url: setPasswordUrl(ctx, token),
        button: 'Set your password',
      });
      await recordAudit(trx, now, {
        accountId,
        action: 'user_invited',
        actor,
        target: email,
        detail: { role: input.role },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new MoharError('user_exists', `a user with e-mail ${email} exists already`, {
        errors: [{ path: '/email', message: 'taken' }],
      });
    }
    throw error;
  }
  return userOfAccount(ctx, accountId, userId);
}
