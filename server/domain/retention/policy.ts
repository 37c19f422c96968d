/**
 * Retention policies (issue 29, point 6; docs/operations.md, "Retention"; decision 41). A finished envelope's
 * documents are purged `retention_days` after it finished: the account's policy (accounts.retention_days, GET/PUT
 * {api_base}/account/retention), or, for an envelope made from a template whose settings carry retention_days,
 * the template's (latest version, copied to templates.retention_days), which replaces the account's whether
 * shorter or longer. Null everywhere (the default): nothing is purged.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { recordAudit, type Actor } from '../users/audit-log.js';

/** A hundred years: long enough for any statutory period, short enough to stay a sane date. */
export const MAX_RETENTION_DAYS = 36_500;

export interface RetentionPolicy {
  /** Days after an envelope finished that its documents are purged; null: kept. */
  retention_days: number | null;
}

export function isRetentionDays(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_RETENTION_DAYS;
}

export async function readRetentionPolicy(ctx: Context, accountId: string): Promise<RetentionPolicy> {
  const row = await ctx.db
    .selectFrom('accounts')
    .select('retention_days')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    retention_days: row.retention_days === null || row.retention_days === undefined ? null : Number(row.retention_days),
  };
}

export async function writeRetentionPolicy(
  ctx: Context,
  accountId: string,
  input: RetentionPolicy,
  actor: Actor,
): Promise<RetentionPolicy> {
  const days = input.retention_days;
  if (days !== null && !isRetentionDays(days)) {
    const message = `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null`;
    throw new MoharError('validation_failed', `/retention_days ${message}`, {
      errors: [{ path: '/retention_days', message }],
    });
  }
  await ctx.db.transaction().execute(async (trx) => {
    const before = await readRetentionPolicy({ ...ctx, db: trx }, accountId);
    if (before.retention_days === days) return;
    await trx.updateTable('accounts').set({ retention_days: days }).where('id', '=', accountId).execute();
    // Who changed how long the account's personal data is kept: the account's audit log (docs/users.md).
    await recordAudit(trx, ctx.now(), {
      accountId,
      action: 'retention_changed',
      actor,
      target: days === null ? 'off' : `${days} days`,
      detail: { from: before.retention_days, to: days },
    });
  });
  return { retention_days: days };
}
