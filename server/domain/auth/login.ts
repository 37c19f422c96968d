/**
 * Password login with throttling. Per login: 5 failures within 15 minutes lock the user for 15 minutes. Per
 * client address: 30 failures within 15 minutes refuse further attempts from it for the rest of the window.
 *
 * Every attempt is written down as a failure BEFORE its password is checked (and struck off when it turns out
 * right). Concurrent attempts therefore each count the ones before them: of 20 parallel wrong passwords at most
 * 5 are ever checked, the rest are refused as locked, and a right password arriving meanwhile is refused too.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { recordAudit } from '../users/audit-log.js';
import { DUMMY_HASH_PROMISE, verifyPassword } from './passwords.js';
import { issueTokenPair, type TokenPair } from './tokens.js';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_SECONDS = 15 * 60;
export const LOCKOUT_SECONDS = 15 * 60;
export const ADDRESS_FAILURES = 30;

function lockedError(until: Date, now: Date): MoharError {
  const seconds = Math.ceil((until.getTime() - now.getTime()) / 1000);
  return new MoharError('account_locked', `too many failed logins; try again in ${Math.ceil(seconds / 60)} minute(s)`, {
    retryAfterSeconds: seconds,
  });
}

/** Counts this attempt against the address; refuses when the address has failed too often. Returns the row id. */
async function reserveAddressAttempt(ctx: Context, address: string, now: Date, since: string): Promise<number> {
  // Rows older than the window count for nothing: each address keeps at most one window of them.
  await ctx.db
    .deleteFrom('login_address_failures')
    .where('address', '=', address)
    .where('failed_at', '<=', since)
    .execute();
  const row = await ctx.db
    .insertInto('login_address_failures')
    .values({ address, failed_at: iso(now) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { count } = await ctx.db
    .selectFrom('login_address_failures')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('address', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirstOrThrow();
  if (Number(count) > ADDRESS_FAILURES) {
    throw new MoharError(
      'too_many_login_attempts',
      'too many failed logins from this address; try again in 15 minutes',
      { retryAfterSeconds: LOCKOUT_WINDOW_SECONDS },
    );
  }
  return row.id;
}

/** Counts this attempt against the user; returns how many attempts (this one included) the window holds. */
async function reserveUserAttempt(ctx: Context, userId: string, now: Date, since: string): Promise<number> {
  await ctx.db.deleteFrom('login_failures').where('user_id', '=', userId).where('failed_at', '<=', since).execute();
  await ctx.db
    .insertInto('login_failures')
    .values({ user_id: userId, failed_at: iso(now) })
    .execute();
  const { count } = await ctx.db
    .selectFrom('login_failures')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('failed_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(count);
}

async function lock(ctx: Context, userId: string, now: Date): Promise<MoharError> {
  const until = new Date(now.getTime() + LOCKOUT_SECONDS * 1000);
  await ctx.db
    .updateTable('users')
    .set({ locked_until: iso(until) })
    .where('id', '=', userId)
    .execute();
  return lockedError(until, now);
}

/** `address`: the client's IP (throttling and the audit log); null from the CLI. */
export async function login(
  ctx: Context,
  email: string,
  password: string,
  address: string | null = null,
): Promise<TokenPair> {
  const now = ctx.now();
  const since = iso(new Date(now.getTime() - LOCKOUT_WINDOW_SECONDS * 1000));
  const addressAttempt = address === null ? undefined : await reserveAddressAttempt(ctx, address, now, since);
  const user = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  const failed = (who: { id: string; account_id: string; email: string }, reason: string) =>
    recordAudit(ctx.db, now, {
      accountId: who.account_id,
      action: 'login_failed',
      actor: { userId: who.id, email: who.email, ip: address },
      target: who.email,
      detail: { reason },
    });
  // Invited and deactivated users answer exactly like unknown e-mails (the account's audit log says which).
  if (!user || user.status !== 'active') {
    await verifyPassword(password, await DUMMY_HASH_PROMISE);
    if (user) await failed(user, user.status);
    throw new MoharError('invalid_credentials', 'wrong e-mail or password');
  }
  if (user.locked_until && new Date(user.locked_until) > now) throw lockedError(new Date(user.locked_until), now);

  const attempts = await reserveUserAttempt(ctx, user.id, now, since);
  if (attempts > LOCKOUT_FAILURES) {
    await failed(user, 'locked');
    throw await lock(ctx, user.id, now);
  }
  if (!(await verifyPassword(password, user.password_hash))) {
    await failed(user, 'wrong_password');
    if (attempts >= LOCKOUT_FAILURES) throw await lock(ctx, user.id, now);
    throw new MoharError('invalid_credentials', 'wrong e-mail or password');
  }
  await ctx.db.deleteFrom('login_failures').where('user_id', '=', user.id).execute();
  if (addressAttempt !== undefined) {
    await ctx.db.deleteFrom('login_address_failures').where('id', '=', addressAttempt).execute();
  }
  // Only after the right password: a suspended account (mohar account suspend) says so, to its own users only.
  const account = await ctx.db
    .selectFrom('accounts')
    .select('suspended')
    .where('id', '=', user.account_id)
    .executeTakeFirst();
  if (!account || account.suspended) {
    await failed(user, 'suspended');
    throw new MoharError(
      'account_suspended',
      'this account is suspended; ask the operator of this Mohar server to resume it',
    );
  }
  await ctx.db
    .updateTable('users')
    .set({ locked_until: null, last_login_at: iso(now) })
    .where('id', '=', user.id)
    .execute();
  await recordAudit(ctx.db, now, {
    accountId: user.account_id,
    action: 'login',
    actor: { userId: user.id, email: user.email, ip: address },
    target: user.email,
  });
  return issueTokenPair(ctx, user.id);
}
