/**
 * One mail of an account's outbox, opened: its view with the body and the links in it. Without a mail server
 * the outbox is where an admin finds a signing or set-password link to hand over, so the links are picked out
 * here once instead of by every reader of the text.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../common/errors.js';
import type { SecretBox } from '../seal/secret-box.js';
import type { Database } from '../storage/schema.js';
import { mailView, type MailView } from './outbox.js';

export interface OpenedMail extends MailView {
  text: string;
  html: string | null;
  /** The http(s) links of the plain text body, in order, each once. */
  links: string[];
}

/** A URL runs to the next space or bracket; a sentence's full stop or comma after it is not part of it. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"'()[\]]+/g;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;

export function linksIn(text: string): string[] {
  const found = (text.match(URL_IN_TEXT) ?? []).map((url) => url.replace(TRAILING_PUNCTUATION, ''));
  return [...new Set(found)];
}

/** The mail with its body (sealed bodies are opened with the box); mail_not_found outside the account. */
export async function openOutboxMail(
  db: Kysely<Database>,
  accountId: string,
  mailId: string,
  box: SecretBox,
): Promise<OpenedMail> {
  const row = await db
    .selectFrom('outbox_mail')
    .selectAll()
    .where('id', '=', mailId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new MoharError('mail_not_found', `no mail ${mailId} in this account's outbox`);
  const view = mailView(row, true, box);
  const text = view.text ?? '';
  return { ...view, text, html: view.html ?? null, links: linksIn(text) };
}
