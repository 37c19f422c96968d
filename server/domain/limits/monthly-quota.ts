/**
 * The monthly call quota of an account (accounts.monthly_call_limit; null = unlimited), counted on the legacy
 * document create call per calendar month (UTC). A call reserves its unit before the work, with one atomic
 * upsert that refuses to count past the limit, so concurrent calls on any number of instances never overspend;
 * a call that then fails gives its unit back. Test-key calls are counted apart and never against the quota.
 */
import { sql } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';

export interface Period {
  /** YYYY-MM */
  readonly period: string;
  readonly start: Date;
  /** Start of the next month: when the quota resets. */
  readonly end: Date;
}

export function periodOf(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { period: start.toISOString().slice(0, 7), start, end };
}

export interface Reservation {
  readonly accountId: string;
  readonly period: string;
  readonly test: boolean;
}

/** Counts one call, or throws monthly_quota_exceeded (429, Retry-After until the month ends). */
export async function reserveCall(
  ctx: Context,
  accountId: string,
  limit: number | null,
  test: boolean,
): Promise<Reservation> {
  const now = ctx.now();
  const { period, end } = periodOf(now);
  const refuse = (): MoharError =>
    new MoharError(
      'monthly_quota_exceeded',
      `the account has used its ${limit} document calls for ${period}; the quota resets on ${end.toISOString().slice(0, 10)}`,
      {
        retryAfterSeconds: Math.ceil((end.getTime() - now.getTime()) / 1000),
        extra: { monthly_call_limit: limit, period, resets_at: end.toISOString() },
      },
    );
  const column = test ? 'test_calls' : 'calls';
  if (!test && limit !== null && limit <= 0) throw refuse();
  const row = await ctx.db
    .insertInto('usage_counters')
    .values({ account_id: accountId, period, calls: test ? 0 : 1, test_calls: test ? 1 : 0 })
    .onConflict((oc) => {
      const update = oc
        .columns(['account_id', 'period'])
        .doUpdateSet({ [column]: sql<number>`usage_counters.${sql.ref(column)} + 1` });
      return test || limit === null ? update : update.where('usage_counters.calls', '<', limit);
    })
    .returning('calls')
    .executeTakeFirst();
  if (!row) throw refuse();
  return { accountId, period, test };
}

/** Gives a reserved unit back (the call failed). */
export async function releaseCall(ctx: Context, reservation: Reservation): Promise<void> {
  const column = reservation.test ? 'test_calls' : 'calls';
  await ctx.db
    .updateTable('usage_counters')
    .set({ [column]: sql<number>`${sql.ref(column)} - 1` })
    .where('account_id', '=', reservation.accountId)
    .where('period', '=', reservation.period)
    .where(column, '>', 0)
    .execute();
}

export interface UsageSummary {
  period: string;
  period_start: string;
  period_end: string;
  monthly_call_limit: number | null;
  calls_used: number;
  calls_remaining: number | null;
  test_calls: number;
  rate_limit: { requests_per_minute: number | null; window_seconds: number; per: 'api_key' };
}

export async function usageSummary(ctx: Context, accountId: string): Promise<UsageSummary> {
  const { period, start, end } = periodOf(ctx.now());
  const [account, usage] = await Promise.all([
    ctx.db.selectFrom('accounts').select('monthly_call_limit').where('id', '=', accountId).executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('usage_counters')
      .select(['calls', 'test_calls'])
      .where('account_id', '=', accountId)
      .where('period', '=', period)
      .executeTakeFirst(),
  ]);
  const used = Number(usage?.calls ?? 0);
  const limit = account.monthly_call_limit;
  return {
    period,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    monthly_call_limit: limit,
    calls_used: used,
    calls_remaining: limit === null ? null : Math.max(0, limit - used),
    test_calls: Number(usage?.test_calls ?? 0),
    rate_limit: {
      requests_per_minute: ctx.config.rateLimitPerMinute > 0 ? ctx.config.rateLimitPerMinute : null,
      window_seconds: 60,
      per: 'api_key',
    },
  };
}
