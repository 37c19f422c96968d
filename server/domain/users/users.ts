/** Reading the users of an account, and the checks every user operation shares. */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { DialectName } from '../../storage/connect.js';
import type { Database } from '../../storage/schema.js';
import { MIN_PASSWORD_LENGTH } from '../accounts/create-account.js';
import type { Context } from '../context.js';
import type { Role, UserStatus } from './roles.js';

export interface UserItem {
  id: string;
  email: string;
  role: Role;
  status: UserStatus;
  created_at: string;
  last_login_at: string | null;
}

export async function listUsers(ctx: Context, accountId: string): Promise<UserItem[]> {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'status', 'created_at', 'last_login_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('email')
    .execute();
  return rows.map((r) => ({ ...r, role: r.role as Role, status: r.status as UserStatus }));
}

export async function userOfAccount(ctx: Context, accountId: string, userId: string): Promise<UserItem> {
  const user = (await listUsers(ctx, accountId)).find((u) => u.id === userId);
  if (!user) throw new MoharError('user_not_found', `no user ${userId} in this account`);
  return user;
}

/** The password rule of `mohar admin create`: at least 12 characters. */
export function checkPassword(password: string, path = '/password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new MoharError('validation_failed', `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`, {
      errors: [{ path, message: `at least ${MIN_PASSWORD_LENGTH} characters` }],
    });
  }
}

/**
 * Inside a demotion or deactivation: refuses when `userId` is the account's last active admin. On PostgreSQL
 * the active admins' rows are locked first, so two admins demoting each other at once cannot both pass (the
 * second waits, then sees the first's change); SQLite runs one write transaction at a time anyway.
 */
export async function keepAnAdmin(
  trx: Kysely<Database>,
  dialect: DialectName,
  accountId: string,
  userId: string,
): Promise<void> {
  let query = trx
    .selectFrom('users')
    .select(['id'])
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .where('status', '=', 'active');
  if (dialect === 'postgres') query = query.orderBy('id').forUpdate();
  const admins = await query.execute();
  if (admins.some((a) => a.id === userId) && admins.length === 1) throw lastAdminError();
}

/** True when the account has an active admin other than `exceptUserId`. */
export async function hasOtherActiveAdmin(
  ctx: Context,
  accountId: string,
  exceptUserId: string | null,
): Promise<boolean> {
  let query = ctx.db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .where('status', '=', 'active');
  if (exceptUserId) query = query.where('id', '!=', exceptUserId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

export function lastAdminError(): MoharError {
  return new MoharError('last_admin', 'this is the last active admin of the account: make another user admin first');
}
