/**
 * "Send test mail": one mail, now, through the server that applies to the account (the environment's, else the
 * saved one), bypassing the outbox, so that the admin sees at once whether it works and, if not, the server's
 * error in words. Bounded in time: short connect and greeting timeouts, and the whole attempt at most 30 s.
 */
import { randomUUID } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { fromHeader, messageIdDomain } from '../../mail/send.js';
import { isMailAddress } from '../../mail/outbox.js';
import { smtpTransportFor } from '../../mail/smtp-client.js';
import { describeSmtpFailure } from '../../mail/smtp-failure.js';
import { mailTransportFor, type MailTransportChoice } from '../../mail/transport-settings.js';
import type { Context } from '../context.js';

export const TEST_MAIL_TIMEOUT_SECONDS = 30;

export interface TestMailResult {
  sent: boolean;
  source: 'environment' | 'account';
  /** host:port of the server tried. */
  server: string;
  /** Sent: the server's acceptance; not sent: what went wrong, in words. */
  detail: string;
}

type Deliverable = Exclude<MailTransportChoice, { source: 'none' }>;

function serverName(choice: Deliverable): string {
  if (choice.source === 'account') return `${choice.server.host}:${choice.server.port}`;
  const url = new URL(choice.smtpUrl);
  return `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
}

/** Rejects after the overall limit, whatever stage the SMTP conversation is in. */
function withinLimit<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), seconds * 1000);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

async function deliver(ctx: Context, choice: Deliverable, to: string, server: string): Promise<string> {
  const transport = await smtpTransportFor(choice, ctx.config, {
    connectionTimeoutMs: 10_000,
    greetingTimeoutMs: 10_000,
    socketTimeoutMs: 20_000,
  });
  try {
    const info = await withinLimit(
      transport.sendMail({
        from: fromHeader(choice.from),
        to,
        subject: 'Mohar test mail',
        text:
          `This is a test mail from Mohar, sent through the mail server ${server} to check its settings.\n` +
          'If you can read it, mail from Mohar reaches this mailbox. No reply is needed.\n',
        messageId: `<test-${randomUUID()}@${messageIdDomain(choice.from)}>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      }),
      TEST_MAIL_TIMEOUT_SECONDS,
    );
    return `The mail server ${server} accepted the test mail for ${to}: "${String(info.response ?? '').trim()}".`;
  } finally {
    transport.close();
  }
}

export async function sendTestMail(ctx: Context, accountId: string, to: string): Promise<TestMailResult> {
  const address = to.trim();
  if (!isMailAddress(address)) {
    throw new MoharError('validation_failed', `"${to}" is not one e-mail address`, {
      errors: [{ path: 'body/to', message: 'not one e-mail address' }],
    });
  }
  const choice = await mailTransportFor(ctx, accountId);
  if (choice.source === 'none') {
    throw new MoharError('smtp_not_configured', 'no mail server is set: save one first, then send a test mail');
  }
  const server = serverName(choice);
  try {
    const detail = await deliver(ctx, choice, address, server);
    return { sent: true, source: choice.source, server, detail };
  } catch (error) {
    return {
      sent: false,
      source: choice.source,
      server,
      detail: describeSmtpFailure(error, server, TEST_MAIL_TIMEOUT_SECONDS),
    };
  }
}
