/** Developer portal: the delivery log (one row per HTTP attempt), newest first, with filters. */
import { MoharError } from '../../../common/errors.js';
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

export interface AttemptPage {
  items: AttemptView[];
  next_before: string | null;
}

export async function listAttempts(
  ctx: Context,
  accountId: string,
  options: ListAttemptsOptions,
): Promise<AttemptPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit), 1), 200);
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
    if (!cursor) {
      throw new MoharError(
        'validation_failed',
        `before: no attempt ${options.before} (pass next_before of the previous page)`,
        { errors: [{ path: 'querystring/before', message: 'names no attempt' }] },
      );
    }
    query = query.where((eb) =>
      eb.or([
        eb('finished_at', '<', cursor.finished_at),
        eb.and([eb('finished_at', '=', cursor.finished_at), eb('id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit).map(attemptView);
  return { items, next_before: rows.length > limit ? items[items.length - 1]!.id : null };
}
