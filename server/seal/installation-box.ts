/**
 * The installation's secret box (secret-box.ts), opened once per Config, for stored bodies that carry a
 * signing link: outbox mails and Idempotency-Key replay rows (issue 16, point 10).
 */
import type { Config } from '../config.js';
import { openSecretBox, type SecretBox } from './secret-box.js';

const boxes = new WeakMap<Pick<Config, 'secretKey' | 'dataDir'>, Promise<SecretBox>>();

export function installationBox(config: Pick<Config, 'secretKey' | 'dataDir'>): Promise<SecretBox> {
  let box = boxes.get(config);
  if (!box) {
    box = openSecretBox(config);
    box.catch(() => boxes.delete(config));
    boxes.set(config, box);
  }
  return box;
}
