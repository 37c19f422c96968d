/**
 * The mail outbox: every mail is a row first (queueMail, inside the caller's transaction, together
 * with its `mail.send` job), then sent by the job (send.ts). Sending never happens inside a
 * business transaction, so a mail failure can never undo or fail the business change.
 *
 * Attachments live in the blob store (content-addressed, SHA-256): put the bytes there first
 * (ctx.blobs.put) and pass the hash. Signed PDFs are already there. No bytes in the outbox row, so
 * listing stays cheap and a PDF mailed to five recipients is stored once.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { Type } from 'typebox';
import { MoharError } from '../../common/errors.js';
import { enqueueOnce, jobKind, parseJobPayload } from '../jobs/definition.js';
import type { SecretBox } from '../seal/secret-box.js';
import { newestFirstPage, olderThan, pageLimit, unknownCursor, type NewestFirstPage } from '../storage/keyset.js';
import type { Database, MailKind, MailStatus, OutboxMailTable } from '../storage/schema.js';

export const MAIL_KINDS: readonly MailKind[] = [
  'invitation',
  'your_turn',
  'reminder',
  'completion',
  'declined',
  'voided',
  'other',
];
export const MAIL_STATUSES: readonly MailStatus[] = ['queued', 'sent', 'failed', 'kept'];

/** The job that sends one outbox row (send.ts). */
export const MAIL_SEND_JOB = jobKind('mail.send', Type.Object({ mail_id: Type.String() }));

export interface MailAttachment {
  readonly filename: string;
  readonly content_type: string;
  /** SHA-256 of the bytes in the blob store. */
  readonly sha256: string;
  readonly size: number;
}

export interface MailToQueue {
  readonly accountId: string;
  /** One address. */
  readonly to: string;
  /** Display name for the To header (nodemailer encodes it). */
  readonly toName?: string | null;
  readonly subject: string;
  readonly text: string;
  readonly html?: string | null;
  readonly kind: MailKind;
  readonly envelopeId?: string | null;
  readonly recipientId?: string | null;
  readonly attachments?: readonly MailAttachment[];
  /**
   * Queue this logical mail once (e.g. `invitation:<recipient id>`): a repeat returns the first mail's id and writes
   * nothing.
   */
  readonly dedupeKey?: string;
  /** Send attempts before the mail is `failed` (default 8, see server/jobs/backoff.ts). */
  readonly maxAttempts?: number;
  /** Not before this time (e.g. a scheduled reminder). */
  readonly sendAt?: Date;
  /**
   * The body carries a signing link: store text and html encrypted with this box (the installation's, see
   * seal/installation-box.ts), bound to the mail's id; they are opened only to send and to list with bodies.
   */
  readonly sealWith?: SecretBox;
}

/** The additional data that binds a sealed body to its row and part. */
function bodyContext(mailId: string, part: 'text' | 'html'): string {
  return `outbox_mail:${mailId}:${part}`;
}

/** The clear text and html of a row (sealed rows are opened with the box; refused without one). */
export function mailBody(
  row: Pick<Selectable<OutboxMailTable>, 'id' | 'text' | 'html' | 'sealed'>,
  box: SecretBox | undefined,
): { text: string; html: string | null } {
  if (row.sealed !== 1) return { text: row.text, html: row.html };
  if (!box) {
    throw new MoharError(
      'seal_key_unreadable',
      `outbox mail ${row.id} is sealed and no secret box was given to open it`,
    );
  }
  return {
    text: box.open(row.text, bodyContext(row.id, 'text')).toString('utf8'),
    html: row.html === null ? null : box.open(row.html, bodyContext(row.id, 'html')).toString('utf8'),
  };
}

const ADDRESS = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$|^[^\s@<>(),;:"\\[\]]+@localhost$/i;
const SHA256 = /^[0-9a-f]{64}$/;

/** One plain e-mail address (no display name), as a mail's To or From takes it. */
export function isMailAddress(text: string): boolean {
  return text.length <= 320 && ADDRESS.test(text);
}

function refuse(message: string): never {
  throw new MoharError('validation_failed', message);
}

function checkMail(mail: MailToQueue): void {
  if (!isMailAddress(mail.to)) refuse(`mail to "${mail.to}": not a single e-mail address`);
  if (!MAIL_KINDS.includes(mail.kind)) refuse(`mail kind "${mail.kind}" is not one of ${MAIL_KINDS.join(', ')}`);
  if (/[\r\n]/.test(mail.subject) || /[\r\n]/.test(mail.toName ?? '')) {
    refuse('a mail subject or recipient name must be one line');
  }
  for (const a of mail.attachments ?? []) {
    if (!SHA256.test(a.sha256)) {
      refuse(`mail attachment ${a.filename}: sha256 must be the blob's lower-case hex SHA-256`);
    }
    if (a.filename === '' || /[\r\n/\\]/.test(a.filename)) {
      refuse(`mail attachment "${a.filename}": not a plain file name`);
    }
  }
}

/**
 * Writes the outbox row and its `mail.send` job, atomically: pass the caller's transaction as `db`
 * (given a plain Kysely, queueMail opens its own). Returns the mail id. Nothing is sent here and
 * nothing here can fail because of SMTP; it throws only for a malformed mail (validation_failed,
 * a bug in the caller) or a database error. Call runner.poke() after the commit to send at once.
 */
export async function queueMail(db: Kysely<Database>, mail: MailToQueue, now: Date = new Date()): Promise<string> {
  checkMail(mail);
  const write = async (trx: Kysely<Database>): Promise<string> => {
    const mailId = randomUUID();
    const job = await enqueueOnce(
      trx,
      MAIL_SEND_JOB,
      { mail_id: mailId },
      {
        accountId: mail.accountId,
        now,
        ...(mail.sendAt ? { runAt: mail.sendAt } : {}),
        ...(mail.maxAttempts !== undefined ? { maxAttempts: mail.maxAttempts } : {}),
        ...(mail.dedupeKey !== undefined ? { dedupeKey: `mail:${mail.dedupeKey}` } : {}),
      },
    );
    if (!job.created) {
      const existing = await trx
        .selectFrom('jobs')
        .select('payload')
        .where('id', '=', job.id)
        .executeTakeFirstOrThrow();
      return parseJobPayload(MAIL_SEND_JOB, JSON.parse(existing.payload)).mail_id;
    }
    const at = now.toISOString();
    await trx
      .insertInto('outbox_mail')
      .values({
        id: mailId,
        account_id: mail.accountId,
        to_address: mail.to,
        to_name: mail.toName ?? null,
        subject: mail.subject,
        text: mail.sealWith ? mail.sealWith.seal(mail.text, bodyContext(mailId, 'text')) : mail.text,
        html:
          mail.html == null
            ? null
            : mail.sealWith
              ? mail.sealWith.seal(mail.html, bodyContext(mailId, 'html'))
              : mail.html,
        sealed: mail.sealWith ? 1 : 0,
        attachments: JSON.stringify(mail.attachments ?? []),
        kind: mail.kind,
        envelope_id: mail.envelopeId ?? null,
        recipient_id: mail.recipientId ?? null,
        status: 'queued',
        attempts: 0,
        last_error: null,
        message_id: null,
        created_at: at,
        updated_at: at,
        sent_at: null,
        test: ofTestEnvelope(mail.envelopeId),
      })
      .execute();
    return mailId;
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/**
 * A test envelope's mail (made with a qsk_test_ key, issue 16) is marked test here, the one place every mail
 * passes: the send job keeps it in the outbox and never delivers it (send.ts), whoever queued it. Read from the
 * envelope inside the insert itself, so marking costs no extra round trip.
 */
function ofTestEnvelope(envelopeId: string | null | undefined): number | RawBuilder<number> {
  if (!envelopeId) return 0;
  return sql<number>`coalesce((select 1 from envelopes where id = ${envelopeId} and mode = 'test'), 0)`;
}

export interface MailView {
  id: string;
  to: string;
  to_name: string | null;
  subject: string;
  kind: MailKind;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
  envelope_id: string | null;
  recipient_id: string | null;
  attachments: MailAttachment[];
  /** A test envelope's mail: kept, never delivered. */
  test: boolean;
  text?: string;
  html?: string | null;
}

export function parseAttachments(json: string): MailAttachment[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? (value as MailAttachment[]) : [];
}

export function mailView(row: Selectable<OutboxMailTable>, includeBody: boolean, box?: SecretBox): MailView {
  const view: MailView = {
    id: row.id,
    to: row.to_address,
    to_name: row.to_name,
    subject: row.subject,
    kind: row.kind,
    status: row.status,
    attempts: Number(row.attempts),
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
    envelope_id: row.envelope_id,
    recipient_id: row.recipient_id,
    attachments: parseAttachments(row.attachments),
    test: row.test === 1,
  };
  if (includeBody) {
    const body = mailBody(row, box);
    view.text = body.text;
    view.html = body.html;
  }
  return view;
}

export interface ListOutboxOptions {
  readonly status?: MailStatus;
  readonly envelopeId?: string;
  /** 1 to 200. */
  readonly limit: number;
  /** Paging: the id of the last mail of the previous page. */
  readonly before?: string;
  /** Add text and html. */
  readonly includeBody?: boolean;
  /** Opens sealed bodies (needed with includeBody). */
  readonly box?: SecretBox;
}

export type MailPage = NewestFirstPage<MailView>;

/** An account's outbox, newest first (created_at, then id). */
export async function listOutbox(
  db: Kysely<Database>,
  accountId: string,
  options: ListOutboxOptions,
): Promise<MailPage> {
  const limit = pageLimit(options.limit, 200);
  let query = db.selectFrom('outbox_mail').selectAll().where('account_id', '=', accountId);
  if (options.status !== undefined) query = query.where('status', '=', options.status);
  if (options.envelopeId !== undefined) query = query.where('envelope_id', '=', options.envelopeId);
  if (options.before !== undefined) {
    const cursor = await db
      .selectFrom('outbox_mail')
      .select(['created_at', 'id'])
      .where('id', '=', options.before)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!cursor) throw unknownCursor(options.before, 'mail in this outbox');
    query = query.where((eb) => olderThan(eb, 'created_at', 'id', { time: cursor.created_at, id: cursor.id }));
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return newestFirstPage(rows, limit, (row) => mailView(row, options.includeBody ?? false, options.box));
}
