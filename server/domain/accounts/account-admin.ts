/**
 * Operator actions on an account (mohar account suspend|resume|limit): suspension refuses every call made
 * with the account's API keys and its users' logins and login tokens (403 account_suspended, auth/tokens.ts and
 * auth/login.ts); the monthly call limit caps legacy document creates.
 * Cached key identities of this process are dropped at once; another process (a running SQLite server)
 * notices within its key cache lifetime (5 s), and the legacy create call reads the account afresh anyway.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { forgetAccountKeys } from '../keys/api-keys.js';
import { periodOf } from '../limits/monthly-quota.js';

export interface AccountState {
  account_id: string;
  name: string;
  test_mode: boolean;
  suspended: boolean;
  monthly_call_limit: number | null;
  /** Legacy create calls in the current month (UTC). */
  calls_this_month: number;
}

/** An account by id, or by the e-mail of one of its logins. */
export async function resolveAccount(ctx: Context, ref: string): Promise<string> {
  const byId = await ctx.db.selectFrom('accounts').select('id').where('id', '=', ref).executeTakeFirst();
  if (byId) return byId.id;
  const byLogin = await ctx.db
    .selectFrom('users')
    .select('account_id')
    .where('email', '=', ref.trim().toLowerCase())
    .executeTakeFirst();
  if (byLogin) return byLogin.account_id;
  throw new MoharError('validation_failed', `no account with id or login e-mail "${ref}"`, {
    errors: [{ path: 'account', message: 'unknown account' }],
  });
}

export async function accountState(ctx: Context, accountId: string): Promise<AccountState> {
  const row = await ctx.db
    .selectFrom('accounts')
    .select(['id', 'name', 'test_mode', 'suspended', 'monthly_call_limit'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const usage = await ctx.db
    .selectFrom('usage_counters')
    .select('calls')
    .where('account_id', '=', accountId)
    .where('period', '=', periodOf(ctx.now()).period)
    .executeTakeFirst();
  return {
    account_id: row.id,
    name: row.name,
    test_mode: row.test_mode === 1,
    suspended: row.suspended === 1,
    monthly_call_limit: row.monthly_call_limit,
    calls_this_month: Number(usage?.calls ?? 0),
  };
}

export async function setSuspended(ctx: Context, accountId: string, suspended: boolean): Promise<AccountState> {
  await ctx.db
    .updateTable('accounts')
    .set({ suspended: suspended ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
  forgetAccountKeys(ctx, accountId);
  return accountState(ctx, accountId);
}

/** `limit` null removes the cap. */
export async function setMonthlyCallLimit(
  ctx: Context,
  accountId: string,
  limit: number | null,
): Promise<AccountState> {
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) {
    throw new MoharError(
      'validation_failed',
      `the monthly call limit must be a whole number >= 0 or none (got ${limit})`,
      { errors: [{ path: 'limit', message: 'not a whole number >= 0' }] },
    );
  }
  await ctx.db.updateTable('accounts').set({ monthly_call_limit: limit }).where('id', '=', accountId).execute();
  return accountState(ctx, accountId);
}
