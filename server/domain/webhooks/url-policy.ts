/**
 * What the developer portal says of the rules for a webhook URL (GET /webhook/policy/): the same setting the
 * registration's check (webhooks/url-policy.ts) is given, so the page and the check cannot disagree.
 */
import type { Context } from '../context.js';

export function webhookUrlPolicy(ctx: Pick<Context, 'config'>): { allow_private: boolean } {
  return { allow_private: ctx.config.webhookAllowPrivate };
}
