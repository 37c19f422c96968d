/** Password login with lockout: 5 failures within 15 minutes lock the user for 15 minutes. */
import { MoharError } from '../../../common/errors.js';
import { iso, type Context } from '../context.js';
import { DUMMY_HASH_PROMISE, verifyPassword } from './passwords.js';
import { issueTokenPair, type TokenPair } from './tokens.js';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_SECONDS = 15 * 60;
export const LOCKOUT_SECONDS = 15 * 60;

function lockedError(until: Date, now: Date): MoharError {
  const seconds = Math.ceil((until.getTime() - now.getTime()) / 1000);
  return new MoharError('account_locked', `too many failed logins; try again in ${Math.ceil(seconds / 60)} minute(s)`, { retryAfterSeconds: seconds });
}

export async function login(ctx: Context, email: string, password: string): Promise<TokenPair> {
  const now = ctx.now();
  const user = await ctx.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  if (!user) {
    await verifyPassword(password, await DUMMY_HASH_PROMISE);
    throw new MoharError('invalid_credentials', 'wrong e-mail or password');
  }
  if (user.locked_until && new Date(user.locked_until) > now) throw lockedError(new Date(user.locked_until), now);

  if (!(await verifyPassword(password, user.password_hash))) {
    await ctx.db.insertInto('login_failures').values({ user_id: user.id, failed_at: iso(now) }).execute();
    const since = iso(new Date(now.getTime() - LOCKOUT_WINDOW_SECONDS * 1000));
    const { count } = await ctx.db
      .selectFrom('login_failures')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', user.id)
      .where('failed_at', '>', since)
      .executeTakeFirstOrThrow();
    if (Number(count) >= LOCKOUT_FAILURES) {
      const until = new Date(now.getTime() + LOCKOUT_SECONDS * 1000);
      await ctx.db.updateTable('users').set({ locked_until: iso(until) }).where('id', '=', user.id).execute();
      await ctx.db.deleteFrom('login_failures').where('user_id', '=', user.id).execute();
      throw lockedError(until, now);
    }
    throw new MoharError('invalid_credentials', 'wrong e-mail or password');
  }
  await ctx.db.deleteFrom('login_failures').where('user_id', '=', user.id).execute();
  if (user.locked_until) await ctx.db.updateTable('users').set({ locked_until: null }).where('id', '=', user.id).execute();
  return issueTokenPair(ctx, user.id);
}
