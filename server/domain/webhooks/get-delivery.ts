/** Developer portal: one delivery with its payload and every attempt (oldest first). */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import type { Database } from '../../storage/schema.js';
import { attemptView, deliveryView, type AttemptView, type DeliveryView } from './views.js';

export interface DeliveryDetail extends DeliveryView {
  payload: Record<string, unknown> | null;
  attempt_log: AttemptView[];
}

export async function findDelivery(db: Kysely<Database>, accountId: string, deliveryId: string) {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.url', 'e.status as endpoint_status'])
    .where('d.id', '=', deliveryId)
    .where('d.account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new MoharError('webhook_delivery_not_found', `no webhook delivery ${deliveryId} in this account`);
  return row;
}

export async function getDelivery(ctx: Context, accountId: string, deliveryId: string): Promise<DeliveryDetail> {
  const row = await findDelivery(ctx.db, accountId, deliveryId);
  const [event, attempts] = await Promise.all([
    ctx.db.selectFrom('events').select('payload').where('id', '=', row.event_id).executeTakeFirst(),
    ctx.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .orderBy('finished_at')
      .execute(),
  ]);
  return {
    ...deliveryView(row),
    payload: event ? (JSON.parse(event.payload) as Record<string, unknown>) : null,
    attempt_log: attempts.map(attemptView),
  };
}
