/**
 * Webhook signing secrets: generated here, kept encrypted with the installation's secret box (they must be
 * readable again to sign), bound to their endpoint row as additional authenticated data.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { openSecretBox, type SecretBox } from '../seal/secret-box.js';
import type { WebhookEndpointsTable } from '../storage/schema.js';

/** 32 random bytes; the HMAC key is the whole string's UTF-8 bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

const boxes = new WeakMap<Pick<Config, 'secretKey' | 'dataDir'>, Promise<SecretBox>>();

/** The secret box of this installation, opened once per Config. */
export function webhookSecretBox(config: Pick<Config, 'secretKey' | 'dataDir'>): Promise<SecretBox> {
  let box = boxes.get(config);
  if (!box) {
    box = openSecretBox(config);
    box.catch(() => boxes.delete(config));
    boxes.set(config, box);
  }
  return box;
}

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
export function signingSecrets(box: SecretBox, endpoint: Pick<WebhookEndpointsTable, 'id' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: Date): string[] {
  const secrets = [openSecret(box, endpoint.id, endpoint.secret)];
  if (endpoint.previous_secret !== null && endpoint.previous_secret_expires_at !== null && endpoint.previous_secret_expires_at > now.toISOString()) {
    secrets.push(openSecret(box, endpoint.id, endpoint.previous_secret));
  }
  return secrets;
}
