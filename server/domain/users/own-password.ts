/**
 * A logged-in user changes their own password (the current one required) or, logged out, asks for a reset
 * link. The reset request answers the same whether or not the e-mail exists; only an active user gets a mail.
 */
import { MoharError } from '../../../common/errors.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { hashToken } from '../auth/tokens.js';
import type { Context } from '../context.js';
import { recordAudit, type Actor } from './audit-log.js';
import { issueLink, queueUserMail, setPasswordUrl } from './links.js';
import { revokeUserSessions } from './sessions.js';
import { checkPassword } from './users.js';

/** `accessToken`: the caller's token; its session stays, every other session of the user ends. */
export async function changeOwnPassword(
  ctx: Context,
  userId: string,
  accessToken: string,
  input: { current_password: string; new_password: string },
  actor: Actor,
): Promise<void> {
  checkPassword(input.new_password, '/new_password');
  const user = await ctx.db
    .selectFrom('users')
    .select(['account_id', 'email', 'password_hash'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  if (!(await verifyPassword(input.current_password, user.password_hash))) {
    throw new MoharError('validation_failed', 'the current password is not right', {
      errors: [{ path: '/current_password', message: 'not your current password' }],
    });
  }
  const hash = await hashPassword(input.new_password);
  const current = await ctx.db
    .selectFrom('auth_tokens')
    .select('refresh_hash')
    .where('token_hash', '=', hashToken(accessToken))
    .executeTakeFirst();
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
    await revokeUserSessions(trx, now, userId, current?.refresh_hash ?? undefined);
    await recordAudit(trx, now, { accountId: user.account_id, action: 'password_changed', actor, target: user.email });
  });
}

export async function requestPasswordReset(ctx: Context, email: string, ip: string | null): Promise<void> {
  const user = await ctx.db
    .selectFrom('users')
    .select(['id', 'account_id', 'email', 'status'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  if (!user || user.status !== 'active') return;
  const now = ctx.now();
  // One mail a minute per user at most: the public form must not become a way to flood someone's mailbox.
  const recent = await ctx.db
    .selectFrom('user_tokens')
    .select('token_hash')
    .where('user_id', '=', user.id)
    .where('purpose', '=', 'reset')
    .where('created_at', '>', new Date(now.getTime() - 60_000).toISOString())
    .executeTakeFirst();
  if (recent) return;
  await ctx.db.transaction().execute(async (trx) => {
    const token = await issueLink(trx, now, user.id, 'reset');
    await queueUserMail(trx, now, {
      accountId: user.account_id,
      to: user.email,
      subject: 'Reset your Mohar password',
      lines: [
        'Someone asked to reset the password of this Mohar login. If it was not you, ignore this mail: your password stays as it is.',
        'The link works once, for one hour.',
      ],
      url: setPasswordUrl(ctx, token),
      button: 'Choose a new password',
    });
    await recordAudit(trx, now, {
      accountId: user.account_id,
      action: 'password_reset_requested',
      actor: { ip },
      target: user.email,
    });
  });
}
