/** The account's registered endpoint, and the secret change that registration and rotation share. */
import type { Kysely, Selectable } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { SecretBox } from '../../seal/secret-box.js';
import type { Database, WebhookEndpointsTable } from '../../storage/schema.js';
import { newWebhookSecret, sealSecret } from '../../webhooks/secrets.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** The account's endpoint (locked for the transaction on PostgreSQL), or undefined. */
export async function accountEndpoint(
  db: Kysely<Database>,
  accountId: string,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow | undefined> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', 'account');
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function requireAccountEndpoint(
  db: Kysely<Database>,
  accountId: string,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow> {
  const endpoint = await accountEndpoint(db, accountId, options);
  if (!endpoint) {
    throw new MoharError(
      'webhook_not_registered',
      'this account has no webhook; register one with POST /webhook/save/',
    );
  }
  return endpoint;
}

export interface SecretChange {
  readonly secret: string;
  readonly columns: Pick<WebhookEndpointsTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>;
}

/**
 * A new secret for the endpoint; the current one keeps signing alongside it for `overlapHours` (0: it
 * stops at once). A secret still in its overlap from an earlier rotation is dropped: at most two sign.
 */
export function rotatedSecret(
  box: SecretBox,
  endpoint: Pick<EndpointRow, 'id' | 'secret'>,
  now: Date,
  overlapHours: number,
): SecretChange {
  const secret = newWebhookSecret();
  const overlap = overlapHours > 0;
  return {
    secret,
    columns: {
      secret: sealSecret(box, endpoint.id, secret),
      previous_secret: overlap ? endpoint.secret : null,
      previous_secret_expires_at: overlap ? new Date(now.getTime() + overlapHours * 3_600_000).toISOString() : null,
    },
  };
}
