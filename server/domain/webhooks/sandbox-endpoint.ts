/**
 * The sandbox's one-off receivers (issue 7: a mock DSC request with a webhook_url). A sandbox endpoint is
 * its own row (kind 'sandbox') with its own secret, returned once to the integrator; it is not the
 * account's registered webhook, and exists even when the account has none. Bind an envelope to it and
 * the envelope's events of the bound types are delivered to it under the usual signing and retry rules
 * (in addition to the account's own endpoint, if any). See server/webhooks/README.md.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { EnvelopeEventType } from '../../../common/events.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { Resolver } from '../../net/guarded-transport.js';
import type { Database } from '../../storage/schema.js';
import { newWebhookSecret, sealSecret, webhookSecretBox } from '../../webhooks/secrets.js';
import { checkWebhookUrl } from '../../webhooks/url-policy.js';

export interface SandboxEndpoint {
  readonly endpointId: string;
  /** The URL as it will be called. */
  readonly url: string;
  /** Shown once to the integrator; Mohar keeps it encrypted. */
  readonly secret: string;
}

/**
 * Creates a sandbox endpoint in the caller's transaction. The URL is checked like a registered webhook's
 * (https, public address; MOHAR_WEBHOOK_ALLOW_PRIVATE relaxes it): invalid_webhook_url (422) otherwise.
 * The check resolves the host name: call checkWebhookUrl() before opening the transaction to keep DNS
 * out of it, then pass `checked: true`.
 */
export async function createSandboxEndpoint(
  ctx: Context,
  trx: Kysely<Database>,
  input: { accountId: string; url: string; checked?: boolean; resolve?: Resolver },
): Promise<SandboxEndpoint> {
  const url = input.checked
    ? input.url
    : await checkWebhookUrl(input.url, {
        allowPrivate: ctx.config.webhookAllowPrivate,
        ...(input.resolve ? { resolve: input.resolve } : {}),
      });
  const box = await webhookSecretBox(ctx.config);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const at = iso(ctx.now());
  await trx
    .insertInto('webhook_endpoints')
    .values({
      id,
      account_id: input.accountId,
      kind: 'sandbox',
      url,
      secret: sealSecret(box, id, secret),
      previous_secret: null,
      previous_secret_expires_at: null,
      status: 'active',
      disabled_reason: null,
      disabled_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { endpointId: id, url, secret };
}

/**
 * From now on, the envelope's events of these types (default: envelope.completed only; '*' for all) are
 * also delivered to the endpoint. Bind in the same transaction that creates the envelope or endpoint.
 */
export async function bindEnvelopeEvents(
  trx: Kysely<Database>,
  input: { envelopeId: string; endpointId: string; eventTypes?: readonly (EnvelopeEventType | '*')[]; at: string },
): Promise<void> {
  const types: readonly (EnvelopeEventType | '*')[] = input.eventTypes ?? ['envelope.completed'];
  if (types.length === 0) return;
  await trx
    .insertInto('webhook_bindings')
    .values(
      types.map((eventType) => ({
        envelope_id: input.envelopeId,
        endpoint_id: input.endpointId,
        event_type: eventType,
        created_at: input.at,
      })),
    )
    .onConflict((oc) => oc.columns(['envelope_id', 'endpoint_id', 'event_type']).doNothing())
    .execute();
}
