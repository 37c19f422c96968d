/** Developer portal: the current signing secret, and until when a rotated-out one still signs. */
import type { Context } from '../context.js';
import { requireAccountEndpoint } from './endpoints.js';
import { openSecret, webhookSecretBox } from '../../webhooks/secrets.js';
import { endpointView } from './views.js';

export async function revealWebhookSecret(
  ctx: Context,
  accountId: string,
): Promise<{ webhook_secret: string; previous_secret_expires_at: string | null }> {
  const endpoint = await requireAccountEndpoint(ctx.db, accountId);
  const box = await webhookSecretBox(ctx.config);
  return {
    webhook_secret: openSecret(box, endpoint.id, endpoint.secret),
    previous_secret_expires_at: endpointView(endpoint, ctx.now()).previous_secret_expires_at,
  };
}

export async function getWebhook(ctx: Context, accountId: string) {
  return endpointView(await requireAccountEndpoint(ctx.db, accountId), ctx.now());
}
