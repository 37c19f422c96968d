/** Developer portal: a new secret now; the old one keeps signing alongside it for the overlap (default 24 h). */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { requireAccountEndpoint, rotatedSecret } from './endpoints.js';
import { webhookSecretBox } from '../../webhooks/secrets.js';

export interface RotatedSecret {
  webhook_secret: string;
  /** Until when the old secret also signs (null with a zero overlap). */
  previous_secret_expires_at: string | null;
}

export async function rotateWebhookSecret(
  ctx: Context,
  accountId: string,
  options: { overlapHours?: number } = {},
): Promise<RotatedSecret> {
  const box = await webhookSecretBox(ctx.config);
  return ctx.db.transaction().execute(async (trx) => {
    const endpoint = await requireAccountEndpoint(trx, accountId, { forUpdate: ctx.dialect === 'postgres' });
    const now = ctx.now();
    const change = rotatedSecret(box, endpoint, now, options.overlapHours ?? ctx.config.webhookSecretOverlapHours);
    await trx
      .updateTable('webhook_endpoints')
      .set({ ...change.columns, updated_at: iso(now) })
      .where('id', '=', endpoint.id)
      .execute();
    return { webhook_secret: change.secret, previous_secret_expires_at: change.columns.previous_secret_expires_at };
  });
}
