/**
 * The public end of an invite or reset link: the user chooses a password. An invited user becomes active;
 * a reset ends every session of the user and lifts a login lockout (the link proves the mailbox).
 */
import { MoharError } from '../../../common/errors.js';
import { hashPassword } from '../auth/passwords.js';
import type { Context } from '../context.js';
import { recordAudit } from './audit-log.js';
import { spendLink } from './links.js';
import { revokeUserSessions } from './sessions.js';
import { checkPassword } from './users.js';

export async function setPasswordFromLink(
  ctx: Context,
  token: string,
  password: string,
  ip: string | null,
): Promise<{ email: string }> {
  checkPassword(password);
  const hash = await hashPassword(password);
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const link = await spendLink(trx, now, token);
    const user = await trx
      .selectFrom('users')
      .select(['id', 'account_id', 'email', 'status'])
      .where('id', '=', link.userId)
      .executeTakeFirstOrThrow();
    if (user.status === 'deactivated') {
      throw new MoharError('invalid_link', 'this user was deactivated; ask an admin of the account');
    }
    await trx
      .updateTable('users')
      .set({ password_hash: hash, status: 'active', locked_until: null })
      .where('id', '=', user.id)
      .execute();
    await trx.deleteFrom('login_failures').where('user_id', '=', user.id).execute();
    await revokeUserSessions(trx, now, user.id);
    await recordAudit(trx, now, {
      accountId: user.account_id,
      action: 'password_set',
      actor: { userId: user.id, email: user.email, ip },
      target: user.email,
      detail: { via: link.purpose },
    });
    return { email: user.email };
  });
}
