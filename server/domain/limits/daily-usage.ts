/**
 * This month's use of the account per day (UTC), for the developer portal's chart: envelopes created by any
 * API, and among them the legacy document creates (the calls the monthly quota counts), those made with a
 * test key, and all test data (envelopes of test keys, by any API: they use no quota and have no legal effect). Read
 * from the envelopes themselves (their (account_id, created_at) index bounds the scan to the
 * month), so a call that failed and gave its unit back is not counted, just as in the quota.
 */
import { sql } from 'kysely';
import { type Context } from '../context.js';
import { periodOf } from './monthly-quota.js';

export interface UsageDay {
  /** YYYY-MM-DD (UTC) */
  date: string;
  envelopes: number;
  calls: number;
  test_calls: number;
  test_envelopes: number;
}

export interface DailyUsage {
  period: string;
  days: UsageDay[];
}

const DAY_MS = 86_400_000;

export async function dailyUsage(ctx: Context, accountId: string): Promise<DailyUsage> {
  const now = ctx.now();
  const { period, start, end } = periodOf(now);
  const day = sql<string>`substr(e.created_at, 1, 10)`;
  const rows = await ctx.db
    .selectFrom('envelopes as e')
    .leftJoin('legacy_documents as l', 'l.envelope_id', 'e.id')
    .select([
      day.as('date'),
      (eb) => eb.fn.countAll<string | number>().as('envelopes'),
      sql<string | number>`sum(case when l.test = 0 then 1 else 0 end)`.as('calls'),
      sql<string | number>`sum(case when l.test = 1 then 1 else 0 end)`.as('test_calls'),
      sql<string | number>`sum(case when e.mode = 'test' then 1 else 0 end)`.as('test_envelopes'),
    ])
    .where('e.account_id', '=', accountId)
    .where('e.created_at', '>=', start.toISOString())
    .where('e.created_at', '<', end.toISOString())
    .groupBy(day)
    .execute();
  const byDate = new Map(rows.map((r) => [r.date, r]));
  // Every day of the month so far, zeros included: the chart's x axis is the calendar.
  const today = Math.min(now.getTime(), end.getTime() - 1);
  const days: UsageDay[] = [];
  for (let at = start.getTime(); at <= today; at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const row = byDate.get(date);
    days.push({
      date,
      envelopes: Number(row?.envelopes ?? 0),
      calls: Number(row?.calls ?? 0),
      test_calls: Number(row?.test_calls ?? 0),
      test_envelopes: Number(row?.test_envelopes ?? 0),
    });
  }
  return { period, days };
}
