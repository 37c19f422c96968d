/**
 * Developer portal: deliver one event again now. A dead or succeeded delivery gets one more attempt (same
 * event id, same body, a fresh timestamp and signature); a pending one is attempted now instead of at its
 * scheduled time. Not while an attempt is in flight, nor for a disabled endpoint. The history stays: the attempt
 * log keeps every attempt, and delivered_at (the last success) is kept, so a delivered event being redelivered
 * still shows that it reached the receiver.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findDelivery } from './get-delivery.js';
import { announceDeliveries } from '../../webhooks/signal.js';
import { deliveryView, type DeliveryView } from './views.js';

export async function redeliver(ctx: Context, accountId: string, deliveryId: string): Promise<DeliveryView> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findDelivery(trx, accountId, deliveryId);
    if (row.status === 'delivering') {
      throw new MoharError(
        'webhook_delivery_in_progress',
        'an attempt of this delivery is in flight now; wait for it and look again',
      );
    }
    if (row.endpoint_status !== 'active' || row.status === 'paused') {
      throw new MoharError(
        'webhook_disabled',
        'the webhook is disabled; save it again to enable it (its paused deliveries then resume)',
      );
    }
    const at = iso(ctx.now());
    const attempts = Number(row.attempts);
    // A pending delivery keeps its retries; a finished one (dead, or succeeded: the receiver has the event) gets
    // exactly one more attempt, so asking again for a delivered event never starts a schedule of retries.
    const maxAttempts = row.status === 'pending' ? Math.max(Number(row.max_attempts), attempts + 1) : attempts + 1;
    const moved = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: at, max_attempts: maxAttempts, updated_at: at })
      .where('id', '=', deliveryId)
      .where('status', '=', row.status)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new MoharError('webhook_delivery_in_progress', 'the delivery changed meanwhile; look again');
    }
    await announceDeliveries(trx);
    return deliveryView({ ...row, status: 'pending', next_attempt_at: at, max_attempts: maxAttempts, updated_at: at });
  });
}
