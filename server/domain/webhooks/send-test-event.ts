/** Developer portal: a `webhook.test` event to the account's endpoint, delivered and logged like a real one. */
import { MoharError } from '../../../common/errors.js';
import { TEST_EVENT_TYPE } from '../../../common/events.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { requireAccountEndpoint } from './endpoints.js';
import { recordEndpointEvent } from '../../webhooks/endpoint-events.js';

export async function sendTestEvent(
  ctx: Context,
  accountId: string,
): Promise<{ event_id: string; delivery_id: string; type: typeof TEST_EVENT_TYPE }> {
  return ctx.db.transaction().execute(async (trx) => {
    const endpoint = await requireAccountEndpoint(trx, accountId);
    if (endpoint.status !== 'active') {
      throw new MoharError(
        'webhook_disabled',
        `the webhook is disabled (${endpoint.disabled_reason ?? 'no reason recorded'}); save it again to enable it`,
      );
    }
    const at = iso(ctx.now());
    const event = await recordEndpointEvent(trx, {
      endpointId: endpoint.id,
      accountId,
      type: TEST_EVENT_TYPE,
      data: {
        test: true,
        message: 'A test event from the Mohar developer portal. It carries no envelope.',
        webhook_url: endpoint.url,
      },
      at,
    });
    return { event_id: event.eventId, delivery_id: event.deliveryId, type: TEST_EVENT_TYPE };
  });
}
