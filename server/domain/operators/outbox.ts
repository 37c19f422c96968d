/**
 * Operators: the account's mail outbox, and one mail opened to hand a kept link over by hand. Bodies are sealed
 * with the installation's secret box, so reading them needs it.
 */
import { openOutboxMail, type OpenedMail } from '../../mail/outbox-mail.js';
import { listOutbox, type ListOutboxOptions, type MailPage } from '../../mail/outbox.js';
import { installationBox } from '../../seal/installation-box.js';
import type { Context } from '../context.js';

export { MAIL_KINDS, MAIL_STATUSES } from '../../mail/outbox.js';

export async function listAccountOutbox(
  ctx: Context,
  accountId: string,
  options: Omit<ListOutboxOptions, 'box'>,
): Promise<MailPage> {
  const box = options.includeBody === true ? { box: await installationBox(ctx.config) } : {};
  return listOutbox(ctx.db, accountId, { ...options, ...box });
}

export async function openAccountMail(ctx: Context, accountId: string, mailId: string): Promise<OpenedMail> {
  return openOutboxMail(ctx.db, accountId, mailId, await installationBox(ctx.config));
}
