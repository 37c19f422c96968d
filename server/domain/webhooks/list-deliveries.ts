/** Developer portal: the account's deliveries (one per event and endpoint), newest first, with filters. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
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

export interface DeliveryPage {
  items: DeliveryView[];
  next_before: string | null;
}

export async function listDeliveries(
  ctx: Context,
  accountId: string,
  options: ListDeliveriesOptions,
): Promise<DeliveryPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit), 1), 200);
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
    if (!cursor) {
      throw new MoharError(
        'validation_failed',
        `before: no delivery ${options.before} (pass next_before of the previous page)`,
        { errors: [{ path: 'querystring/before', message: 'names no delivery' }] },
      );
    }
    query = query.where((eb) =>
      eb.or([
        eb('d.created_at', '<', cursor.created_at),
        eb.and([eb('d.created_at', '=', cursor.created_at), eb('d.id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit).map(deliveryView);
  return { items, next_before: rows.length > limit ? items[items.length - 1]!.id : null };
}
