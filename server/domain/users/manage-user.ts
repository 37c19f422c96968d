/**
 * An admin changes a user's role or deactivates them. Deactivation revokes every token of the user in the
 * same transaction (their next call is 401). Neither may leave the account without an active admin.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { recordAudit, type Actor } from './audit-log.js';
import type { Role } from './roles.js';
import { revokeUserSessions } from './sessions.js';
import { keepAnAdmin, userOfAccount, type UserItem } from './users.js';

export async function changeRole(
  ctx: Context,
  accountId: string,
  userId: string,
  role: Role,
  actor: Actor,
): Promise<UserItem> {
  const user = await userOfAccount(ctx, accountId, userId);
  if (user.role === role) return user;
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    if (role !== 'admin') await keepAnAdmin(trx, ctx.dialect, accountId, userId);
    await trx.updateTable('users').set({ role }).where('id', '=', userId).execute();
    await recordAudit(trx, now, {
      accountId,
      action: 'role_changed',
      actor,
      target: user.email,
      detail: { from: user.role, to: role },
    });
  });
  return userOfAccount(ctx, accountId, userId);
}

export async function deactivateUser(ctx: Context, accountId: string, userId: string, actor: Actor): Promise<UserItem> {
  const user = await userOfAccount(ctx, accountId, userId);
  if (user.status === 'deactivated') return user;
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await keepAnAdmin(trx, ctx.dialect, accountId, userId);
    if (userId === actor.userId) {
      throw new MoharError('validation_failed', 'you cannot deactivate yourself; ask another admin');
    }
    await trx.updateTable('users').set({ status: 'deactivated' }).where('id', '=', userId).execute();
    await trx
      .updateTable('user_tokens')
      .set({ used_at: now.toISOString() })
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
    await revokeUserSessions(trx, now, userId);
    await recordAudit(trx, now, { accountId, action: 'user_deactivated', actor, target: user.email });
  });
  return userOfAccount(ctx, accountId, userId);
}
