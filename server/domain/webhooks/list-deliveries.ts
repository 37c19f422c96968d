/** Developer portal: the account's deliveries (one per event and endpoint), newest first, with filters. */
import type { Context } from '../context.js';
import { newestFirstPage, olderThan, pageLimit, unknownCursor, type NewestFirstPage } from '../../storage/keyset.js';
import type { WebhookDeliveryStatus } from '../../storage/schema.js';
import { deliveryView, type DeliveryView } from './views.js';

export interface ListDeliveriesOptions {
  readonly eventType?: string;
  readonly status?: WebhookDeliveryStatus;
  /** true: succeeded only; false: everything else. */
  readonly success?: boolean;
  /** 1 to 200. */
  readonly limit: number;
  /** Paging: the id of the last delivery of the previous page. */
  readonly before?: string;
}

export type DeliveryPage = NewestFirstPage<DeliveryView>;

export async function listDeliveries(
  ctx: Context,
  accountId: string,
  options: ListDeliveriesOptions,
): Promise<DeliveryPage> {
  const limit = pageLimit(options.limit, 200);
  let query = ctx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url')
    .where('d.account_id', '=', accountId);
  if (options.eventType !== undefined) query = query.where('d.event_type', '=', options.eventType);
  if (options.status !== undefined) query = query.where('d.status', '=', options.status);
  if (options.success !== undefined) query = query.where('d.status', options.success ? '=' : '<>', 'succeeded');
  if (options.before !== undefined) {
    const cursor = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['created_at', 'id'])
      .where('id', '=', options.before)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!cursor) throw unknownCursor(options.before, 'delivery');
    query = query.where((eb) => olderThan(eb, 'd.created_at', 'd.id', { time: cursor.created_at, id: cursor.id }));
  }
  const rows = await query
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit + 1)
    .execute();
  return newestFirstPage(rows, limit, deliveryView);
}
