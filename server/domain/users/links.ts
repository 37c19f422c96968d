/**
 * Single-use links mailed to a user: `invite` sets the first password (72 h), `reset` replaces a forgotten
 * one (1 h). Both open /app/set-password?token=…; only the token's SHA-256 is stored, and spending it is one
 * conditional UPDATE, so two tabs racing with the same link cannot both set a password.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import { escapeHtml } from '../../mail/templates.js';
import { queueMail } from '../../mail/outbox.js';
import type { Database } from '../../storage/schema.js';
import { hashToken } from '../auth/tokens.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

export const INVITE_LINK_SECONDS = 72 * 3600;
export const RESET_LINK_SECONDS = 3600;

export type LinkPurpose = 'invite' | 'reset';

export function setPasswordUrl(ctx: Context, token: string): string {
  return `${ctx.config.baseUrl}/app/set-password?token=${encodeURIComponent(token)}`;
}

/** A new link for the user; earlier unspent links of the user stop working (only the newest mail counts). */
export async function issueLink(
  db: Kysely<Database>,
  now: Date,
  userId: string,
  purpose: LinkPurpose,
): Promise<string> {
  const token = `msp_${randomBytes(32).toString('base64url')}`;
  await db
    .updateTable('user_tokens')
    .set({ used_at: iso(now) })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
  const seconds = purpose === 'invite' ? INVITE_LINK_SECONDS : RESET_LINK_SECONDS;
  await db
    .insertInto('user_tokens')
    .values({
      token_hash: hashToken(token),
      user_id: userId,
      purpose,
      expires_at: iso(new Date(now.getTime() + seconds * 1000)),
      used_at: null,
      created_at: iso(now),
    })
    .execute();
  return token;
}

export interface SpentLink {
  readonly userId: string;
  readonly purpose: LinkPurpose;
}

function invalidLink(): MoharError {
  return new MoharError('invalid_link', 'this link has expired, was used already or is not valid; ask for a new one');
}

/** Spends a link once: unknown, expired and used links are all the same 410 invalid_link. */
export async function spendLink(db: Kysely<Database>, now: Date, token: string): Promise<SpentLink> {
  const hash = hashToken(token);
  const row = await db
    .selectFrom('user_tokens')
    .select(['user_id', 'purpose', 'expires_at', 'used_at'])
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.used_at !== null || row.expires_at <= iso(now)) throw invalidLink();
  const spent = await db
    .updateTable('user_tokens')
    .set({ used_at: iso(now) })
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) throw invalidLink();
  return { userId: row.user_id, purpose: row.purpose };
}

export interface UserMail {
  readonly accountId: string;
  readonly to: string;
  readonly subject: string;
  readonly lines: readonly string[];
  readonly url: string;
  readonly button: string;
}

/** A short plain mail with one link (invite, reset); queued in the caller's transaction. Returns the mail's id. */
export async function queueUserMail(db: Kysely<Database>, now: Date, mail: UserMail): Promise<string> {
  const text = [...mail.lines, '', `${mail.button}: ${mail.url}`, ''].join('\n');
  const html = [
    ...mail.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(mail.url)}">${escapeHtml(mail.button)}</a></p>`,
    `<p style="font-size:13px;color:#555555">${escapeHtml(mail.url)}</p>`,
  ].join('\n');
  return queueMail(
    db,
    { accountId: mail.accountId, to: mail.to, subject: mail.subject, text, html, kind: 'other' },
    now,
  );
}
