/** `mohar admin unlock EMAIL`: lifts a login lockout (and forgets the failures) of one user. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { recordAudit } from './audit-log.js';

export async function unlockUser(ctx: Context, email: string): Promise<{ email: string; wasLocked: boolean }> {
  const user = await ctx.db
    .selectFrom('users')
    .select(['id', 'account_id', 'email', 'locked_until'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  if (!user) throw new MoharError('user_not_found', `no user with e-mail ${email}`);
  const now = ctx.now();
  const wasLocked = user.locked_until !== null && new Date(user.locked_until) > now;
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ locked_until: null }).where('id', '=', user.id).execute();
    await trx.deleteFrom('login_failures').where('user_id', '=', user.id).execute();
    await recordAudit(trx, now, {
      accountId: user.account_id,
      action: 'user_unlocked',
      actor: { email: 'mohar admin unlock' },
      target: user.email,
    });
  });
  return { email: user.email, wasLocked };
}
