/** Developer portal: the delivery log (one row per HTTP attempt), newest first, with filters. */
import { newestFirstPage, olderThan, pageLimit, unknownCursor, type NewestFirstPage } from '../../storage/keyset.js';
import type { Context } from '../context.js';
import { attemptView, type AttemptView } from './views.js';

export interface ListAttemptsOptions {
  readonly eventType?: string;
  readonly success?: boolean;
  readonly deliveryId?: string;
  readonly eventId?: string;
  /** 1 to 200. */
  readonly limit: number;
  /** Paging: the id of the last attempt of the previous page. */
  readonly before?: string;
}

export type AttemptPage = NewestFirstPage<AttemptView>;

export async function listAttempts(
  ctx: Context,
  accountId: string,
  options: ListAttemptsOptions,
): Promise<AttemptPage> {
  const limit = pageLimit(options.limit, 200);
  let query = ctx.db.selectFrom('webhook_attempts').selectAll().where('account_id', '=', accountId);
  if (options.eventType !== undefined) query = query.where('event_type', '=', options.eventType);
  if (options.success !== undefined) query = query.where('success', '=', options.success ? 1 : 0);
  if (options.deliveryId !== undefined) query = query.where('delivery_id', '=', options.deliveryId);
  if (options.eventId !== undefined) query = query.where('event_id', '=', options.eventId);
  if (options.before !== undefined) {
    const cursor = await ctx.db
      .selectFrom('webhook_attempts')
      .select(['finished_at', 'id'])
      .where('id', '=', options.before)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!cursor) throw unknownCursor(options.before, 'attempt');
    query = query.where((eb) => olderThan(eb, 'finished_at', 'id', { time: cursor.finished_at, id: cursor.id }));
  }
  const rows = await query
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return newestFirstPage(rows, limit, attemptView);
}
