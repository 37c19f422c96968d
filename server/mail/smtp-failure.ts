/**
 * A failed SMTP conversation in words, for the admin who pressed "Send test mail": what went wrong and where,
 * with the server's own answer when it gave one. nodemailer's codes name the stage (connect, TLS, login, the
 * envelope, the message); the socket's code (ECONNREFUSED, ENOTFOUND) says why a connection failed.
 */
import { MailServerRefused } from './smtp-client.js';

interface SmtpError {
  readonly message: string;
  readonly code?: string;
  readonly response?: string;
  readonly responseCode?: number;
}

function asSmtpError(error: unknown): SmtpError {
  if (error instanceof Error) return error as Error & SmtpError;
  return { message: String(error) };
}

function answer(error: SmtpError): string {
  return error.response ? `: the server answered "${error.response.trim()}"` : `: ${error.message}`;
}

export function describeSmtpFailure(error: unknown, server: string, timeoutSeconds: number): string {
  if (error instanceof MailServerRefused) return `The mail server ${server} is not allowed: ${error.message}`;
  const e = asSmtpError(error);
  const text = `${e.code ?? ''} ${e.message}`;
  if (/ECONNREFUSED/.test(text)) return `Nothing accepts connections at ${server} (connection refused).`;
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(text)) {
    return `The name of the mail server ${server} cannot be resolved${answer(e)}`;
  }
  if (/ETIMEDOUT|timeout/i.test(text)) {
    return `The mail server ${server} did not answer in time (at most ${timeoutSeconds} seconds are waited).`;
  }
  switch (e.code) {
    case 'EAUTH':
      return `The mail server ${server} refused the user name or password${answer(e)}`;
    case 'ETLS':
      return `A secure (TLS) connection to ${server} could not be set up${answer(e)}`;
    case 'EENVELOPE':
      return `The mail server ${server} refused the sender or the recipient${answer(e)}`;
    case 'EMESSAGE':
      return `The mail server ${server} refused the message${answer(e)}`;
    default:
      if (/certificate|self[- ]signed|SSL|TLS/i.test(e.message)) {
        return `A secure (TLS) connection to ${server} could not be set up: ${e.message}`;
      }
      return `Sending through ${server} failed${answer(e)}`;
  }
}
