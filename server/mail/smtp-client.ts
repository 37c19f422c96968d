/**
 * The nodemailer transport for a MailTransportChoice. MOHAR_SMTP_URL is the operator's own and used as given;
 * a server saved by an account admin is untrusted input on a hosted installation, so its host must resolve to
 * public addresses only (unless MOHAR_MAIL_ALLOW_PRIVATE), and the connection goes to the address that was
 * checked (no DNS rebinding in between), with the name kept for TLS verification.
 */
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { addressPolicy, guardedLookup, literalAddress, refuseLiteral } from '../net/guarded-transport.js';
import type { AccountSmtpServer, MailTransportChoice } from './transport-settings.js';

export interface MailTransportTimeouts {
  /** TCP connect; default 30 s. */
  readonly connectionTimeoutMs?: number;
  /** Waiting for the server greeting; default 30 s. */
  readonly greetingTimeoutMs?: number;
  /** Socket inactivity; default 60 s. */
  readonly socketTimeoutMs?: number;
}

export type SmtpTransport = ReturnType<typeof nodemailer.createTransport>;

/** Thrown when a saved host is not allowed; its message is shown to the admin as it is. */
export class MailServerRefused extends Error {}

function timeoutOptions(timeouts: MailTransportTimeouts) {
  return {
    connectionTimeout: timeouts.connectionTimeoutMs ?? 30_000,
    greetingTimeout: timeouts.greetingTimeoutMs ?? 30_000,
    socketTimeout: timeouts.socketTimeoutMs ?? 60_000,
  };
}

/** The one address of the saved host to connect to, checked against the address policy. */
export async function checkedAddress(host: string, allowPrivate: boolean): Promise<string> {
  const policy = addressPolicy(allowPrivate);
  const hint = ' (an operator can allow private and loopback mail servers with MOHAR_MAIL_ALLOW_PRIVATE=1)';
  const literal = literalAddress(host);
  if (literal !== undefined) {
    const refused = refuseLiteral(host, policy);
    if (refused) throw new MailServerRefused(refused.message + hint);
    return literal;
  }
  const lookup = promisify(guardedLookup(policy));
  try {
    return (await lookup(host, {})) as unknown as string;
  } catch (error) {
    const message = (error as Error).message;
    throw new MailServerRefused(/not a public address/.test(message) ? message + hint : message);
  }
}

async function accountTransport(
  server: AccountSmtpServer,
  config: Pick<Config, 'mailAllowPrivate'>,
  timeouts: MailTransportTimeouts,
): Promise<SmtpTransport> {
  const address = await checkedAddress(server.host, config.mailAllowPrivate);
  return nodemailer.createTransport({
    host: address,
    port: server.port,
    // The certificate is checked against the name the admin typed, not the address connected to.
    servername: server.host,
    secure: server.tls === 'tls',
    requireTLS: server.tls === 'starttls',
    ignoreTLS: server.tls === 'none',
    ...(server.username === null ? {} : { auth: { user: server.username, pass: server.password ?? '' } }),
    ...timeoutOptions(timeouts),
  });
}

/** A non-pooled transport for the chosen server: nothing stays open between mails. */
export async function smtpTransportFor(
  choice: Exclude<MailTransportChoice, { source: 'none' }>,
  config: Pick<Config, 'mailAllowPrivate'>,
  timeouts: MailTransportTimeouts = {},
): Promise<SmtpTransport> {
  if (choice.source === 'environment') {
    return nodemailer.createTransport({ url: choice.smtpUrl, ...timeoutOptions(timeouts) });
  }
  return accountTransport(choice.server, config, timeouts);
}
