/**
 * Webhook signing secrets: generated here, kept encrypted with the installation's secret box (they must be
 * readable again to sign), bound to their endpoint row as additional authenticated data.
 */
import { randomBytes } from 'node:crypto';
import { installationBox } from '../seal/installation-box.js';
import type { SecretBox } from '../seal/secret-box.js';
import type { WebhookEndpointsTable } from '../storage/schema.js';

/** 32 random bytes; the HMAC key is the whole string's UTF-8 bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The secret box of this installation, opened once per Config (the same box as mails' and replays'). */
export const webhookSecretBox = installationBox;

function context(endpointId: string): string {
  return `webhook_endpoints:${endpointId}`;
}

export function sealSecret(box: SecretBox, endpointId: string, secret: string): string {
  return box.seal(secret, context(endpointId));
}

export function openSecret(box: SecretBox, endpointId: string, sealed: string): string {
  return box.open(sealed, context(endpointId)).toString('utf8');
}

/** The secrets that sign a delivery now: the current one, then the previous one while its overlap lasts. */
export function signingSecrets(
  box: SecretBox,
  endpoint: Pick<WebhookEndpointsTable, 'id' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const secrets = [openSecret(box, endpoint.id, endpoint.secret)];
  if (
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > now.toISOString()
  ) {
    secrets.push(openSecret(box, endpoint.id, endpoint.previous_secret));
  }
  return secrets;
}
