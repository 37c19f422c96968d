/**
 * Which mail transport applies to an account's mail: the ONE place that decides it (decision 38). The send job,
 * "Send again", the test mail and the console's "was mail sent?" questions all ask here.
 *
 *   1. the environment: MOHAR_SMTP_URL (From: MOHAR_MAIL_FROM), when set, for every account;
 *   2. else the account's own mail server, saved in the console (mail-settings.ts);
 *   3. else none: mail is kept in the outbox.
 *
 * Read from the database on every call (one primary-key lookup), so a saved change applies to the next mail
 * without a restart, on every server instance sharing the database.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { installationBox } from '../seal/installation-box.js';
import type { Database, MailTlsMode } from '../storage/schema.js';
import { openMailPassword, readStoredMailSettings } from './mail-settings.js';

/** The From of a mail: a display name (or none) and an address. */
export interface MailSender {
  readonly name: string | null;
  readonly address: string;
}

/** A mail server saved in the console, password opened. */
export interface AccountSmtpServer {
  readonly host: string;
  readonly port: number;
  readonly tls: MailTlsMode;
  readonly username: string | null;
  readonly password: string | null;
}

export type MailTransportChoice =
  | { readonly source: 'environment'; readonly smtpUrl: string; readonly from: MailSender }
  | { readonly source: 'account'; readonly server: AccountSmtpServer; readonly from: MailSender }
  | { readonly source: 'none' };

export type MailTransportSource = MailTransportChoice['source'];

/** What choosing a transport needs (the domain's Context is one; mail/ stays below the domain). */
export interface TransportContext {
  readonly db: Kysely<Database>;
  readonly config: Config;
}

/** "Mohar <sign@example.com>" or "sign@example.com" (MOHAR_MAIL_FROM, checked by config.ts) as name and address. */
export function parseSender(mailFrom: string): MailSender {
  const match = /^(.*)<([^<>]+)>\s*$/.exec(mailFrom);
  if (!match) return { name: null, address: mailFrom.trim() };
  const name = match[1]!.trim().replace(/^"(.*)"$/, '$1');
  return { name: name === '' ? null : name, address: match[2]!.trim() };
}

/** Where the account's mail goes now; opens the stored password only when there is one to use. */
export async function mailTransportFor(ctx: TransportContext, accountId: string): Promise<MailTransportChoice> {
  if (ctx.config.smtpUrl !== undefined) {
    return { source: 'environment', smtpUrl: ctx.config.smtpUrl, from: parseSender(ctx.config.mailFrom) };
  }
  const row = await readStoredMailSettings(ctx.db, accountId);
  if (!row) return { source: 'none' };
  const password = row.password_sealed === null ? null : openMailPassword(await installationBox(ctx.config), row);
  return {
    source: 'account',
    server: { host: row.host, port: Number(row.port), tls: row.tls, username: row.username, password },
    from: { name: row.from_name, address: row.from_address },
  };
}

/**
 * Whether the account's mail is delivered at all (true) or kept in the outbox (false): for messages such as
 * "no mail was sent". Never opens the password.
 */
export async function mailDeliveryConfigured(ctx: TransportContext, accountId: string): Promise<boolean> {
  return (await mailTransportSource(ctx, accountId)) !== 'none';
}

/** Which source applies, without opening anything: for views. */
export async function mailTransportSource(ctx: TransportContext, accountId: string): Promise<MailTransportSource> {
  if (ctx.config.smtpUrl !== undefined) return 'environment';
  return (await readStoredMailSettings(ctx.db, accountId)) ? 'account' : 'none';
}
