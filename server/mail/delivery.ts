/**
 * The one answer to "does Mohar deliver mail, or only keep it in the outbox?". Today it is whether an SMTP
 * server is set (MOHAR_SMTP_URL); mail settings stored in the database will answer here too, so the callers
 * (the console's invitation answer, the resend action) never look at the configuration themselves. Async and
 * given the database for that reason.
 */
import type { Context } from '../domain/context.js';

export type MailDeliveryContext = Pick<Context, 'config' | 'db'>;

export function mailDeliveryConfigured(ctx: MailDeliveryContext): Promise<boolean> {
  return Promise.resolve(ctx.config.smtpUrl !== undefined && ctx.config.smtpUrl !== '');
}
