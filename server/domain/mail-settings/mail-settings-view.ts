/**
 * What the console and the API see of the mail server that applies to an account: never the password, only
 * whether one is set. With MOHAR_SMTP_URL set, the environment's server is shown (host, port, TLS, From; not
 * its user name, which can be a credential of its own, e.g. a cloud access key id) and cannot be changed here.
 */
import type { MailSender, MailTransportSource } from '../../mail/transport-settings.js';
import { parseSender } from '../../mail/transport-settings.js';
import { readStoredMailSettings } from '../../mail/mail-settings.js';
import type { MailTlsMode } from '../../storage/schema.js';
import type { Context } from '../context.js';

/** The TLS choices a saved mail server takes (the column's values, storage/schema.ts), as the API lists them. */
export const MAIL_TLS_MODES: readonly MailTlsMode[] = ['none', 'starttls', 'tls'];

export interface MailSettingsView {
  source: MailTransportSource;
  host: string | null;
  port: number | null;
  tls: MailTlsMode | null;
  username: string | null;
  password_set: boolean;
  from_address: string | null;
  from_name: string | null;
  updated_at: string | null;
}

const NOTHING: Omit<MailSettingsView, 'source'> = {
  host: null,
  port: null,
  tls: null,
  username: null,
  password_set: false,
  from_address: null,
  from_name: null,
  updated_at: null,
};

/** smtps:// is TLS from the start (default port 465); smtp:// upgrades with STARTTLS when offered (587). */
function environmentView(smtpUrl: string, from: MailSender): MailSettingsView {
  const url = new URL(smtpUrl);
  const implicit = url.protocol === 'smtps:';
  return {
    ...NOTHING,
    source: 'environment',
    host: url.hostname,
    port: url.port === '' ? (implicit ? 465 : 587) : Number(url.port),
    tls: implicit ? 'tls' : 'starttls',
    password_set: url.password !== '',
    from_address: from.address,
    from_name: from.name,
  };
}

export async function readMailSettings(
  ctx: Pick<Context, 'db' | 'config'>,
  accountId: string,
): Promise<MailSettingsView> {
  if (ctx.config.smtpUrl !== undefined) return environmentView(ctx.config.smtpUrl, parseSender(ctx.config.mailFrom));
  const row = await readStoredMailSettings(ctx.db, accountId);
  if (!row) return { ...NOTHING, source: 'none' };
  return {
    source: 'account',
    host: row.host,
    port: Number(row.port),
    tls: row.tls,
    username: row.username,
    password_set: row.password_sealed !== null,
    from_address: row.from_address,
    from_name: row.from_name,
    updated_at: row.updated_at,
  };
}
