/**
 * POST /webhook/save/: registers the account's receiver, or changes it. The URL is checked (url-policy.ts).
 * Saving again replaces the URL, re-enables a disabled endpoint (its paused deliveries resume) and issues
 * a new secret, returned once; the old one keeps signing alongside it for the rotation overlap, so a
 * receiver that has not switched yet still verifies.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { Resolver } from '../../net/guarded-transport.js';
import { isUniqueViolation } from '../../storage/connect.js';
import { accountEndpoint, rotatedSecret } from './endpoints.js';
import { newWebhookSecret, sealSecret, webhookSecretBox } from '../../webhooks/secrets.js';
import { announceDeliveries } from '../../webhooks/signal.js';
import { checkWebhookUrl } from '../../webhooks/url-policy.js';
import { endpointView, type WebhookEndpointView } from './views.js';

export interface RegisteredWebhook extends WebhookEndpointView {
  webhook_secret: string;
}

export async function registerWebhook(
  ctx: Context,
  accountId: string,
  rawUrl: string,
  deps: { resolve?: Resolver } = {},
): Promise<RegisteredWebhook> {
  const url = await checkWebhookUrl(rawUrl, {
    allowPrivate: ctx.config.webhookAllowPrivate,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const box = await webhookSecretBox(ctx.config);
  for (let round = 1; ; round++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const now = ctx.now();
        const at = iso(now);
        const existing = await accountEndpoint(trx, accountId, { forUpdate: ctx.dialect === 'postgres' });
        if (!existing) {
          const id = randomUUID();
          const secret = newWebhookSecret();
          const row = {
            id,
            account_id: accountId,
            kind: 'account' as const,
            url,
            secret: sealSecret(box, id, secret),
            previous_secret: null,
            previous_secret_expires_at: null,
            status: 'active' as const,
            disabled_reason: null,
            disabled_at: null,
            created_at: at,
            updated_at: at,
          };
          await trx.insertInto('webhook_endpoints').values(row).execute();
          return { ...endpointView(row, now), webhook_secret: secret };
        }
        const change = rotatedSecret(box, existing, now, ctx.config.webhookSecretOverlapHours);
        const updated = {
          ...existing,
          ...change.columns,
          url,
          status: 'active' as const,
          disabled_reason: null,
          disabled_at: null,
          updated_at: at,
        };
        await trx
          .updateTable('webhook_endpoints')
          .set({ ...change.columns, url, status: 'active', disabled_reason: null, disabled_at: null, updated_at: at })
          .where('id', '=', existing.id)
          .execute();
        if (existing.status === 'disabled') {
          const resumed = await trx
            .updateTable('webhook_deliveries')
            .set({ status: 'pending', next_attempt_at: at, updated_at: at })
            .where('endpoint_id', '=', existing.id)
            .where('status', '=', 'paused')
            .executeTakeFirst();
          if (Number(resumed.numUpdatedRows) > 0) await announceDeliveries(trx);
        }
        return { ...endpointView(updated, now), webhook_secret: change.secret };
      });
    } catch (error) {
      // Two first registrations at once: the loser sees the winner's row on its second round.
      if (round === 1 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}
