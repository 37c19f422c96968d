/**
 * The workflow's mails in English: subject, plain text and simple accessible HTML (one column,
 * real text, a descriptive link, lang and title set, no images, no tracking). Functions take plain
 * data and know nothing of the database. Every piece of user text (titles, names, messages,
 * reasons) is HTML-escaped in the HTML part, and control characters are removed from the subject
 * (no header injection; nodemailer encodes the rest).
 */

export interface MailContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** What every envelope mail names. */
export interface EnvelopeMailData {
  /** The envelope title (user text). */
  readonly envelopeTitle: string;
  /** Whom the mail is for. */
  readonly recipientName: string;
  /** The sending account's name. */
  readonly senderName: string;
}

export type RecipientAction = 'sign' | 'approve' | 'review';

export interface SigningMailData extends EnvelopeMailData {
  /** The recipient's personal link to the signing page (http or https). */
  readonly signingUrl: string;
  /** What the recipient is asked to do; default sign. */
  readonly action?: RecipientAction;
  /** The sender's message to recipients (user text, may span lines). */
  readonly message?: string | null;
  /** When the envelope expires (ISO-8601), if it does. */
  readonly expiresAt?: string | null;
}

export interface ReminderMailData extends SigningMailData {
  /** When the envelope was sent (ISO-8601). */
  readonly sentAt?: string | null;
}

export interface CompletionMailData extends EnvelopeMailData {
  /** File names of the attached signed PDFs, to name them in the text. */
  readonly attachmentNames: readonly string[];
  /** Where the documents can also be downloaded, if anywhere. */
  readonly documentsUrl?: string | null;
}

export interface DeclinedMailData extends EnvelopeMailData {
  /** Who declined. */
  readonly declinedBy: string;
  readonly reason?: string | null;
}

export interface VoidedMailData extends EnvelopeMailData {
  readonly reason?: string | null;
}

const VERB: Record<RecipientAction, { verb: string; button: string }> = {
  sign: { verb: 'sign', button: 'Review and sign' },
  approve: { verb: 'approve', button: 'Review and approve' },
  review: { verb: 'review', button: 'Review' },
};

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * One header line: control characters (CR, LF, tabs, …) become spaces, runs of space collapse, at most `max`
 * characters.
 */
export function headerText(text: string, max = 200): string {
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** Only http(s) links reach a mail: anything else is a bug upstream. */
function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`mail link is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError(`mail link must be http(s): ${url}`);
  }
  return parsed.toString();
}

function quoted(title: string): string {
  return `“${headerText(title, 150)}”`;
}

function formatDate(isoTime: string): string {
  const date = new Date(isoTime);
  if (Number.isNaN(date.getTime())) return isoTime;
  return `${date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })} (UTC)`;
}

/** A block of plain text as HTML paragraphs: escaped, blank lines split paragraphs, single newlines become <br>. */
function paragraphs(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

interface Layout {
  readonly subject: string;
  /** Already-escaped HTML blocks. */
  readonly blocks: readonly string[];
}

const FOOTER_TEXT =
  'This message was sent by Mohar on behalf of the sender named above. If you did not expect it, you can ignore it.';

function page({ subject, blocks }: Layout): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title>`,
    '</head>',
    '<body style="margin:0;padding:0;background:#ffffff;color:#1a1a1a;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5">',
    '<div role="article" aria-label="' + escapeHtml(subject) + '" style="max-width:600px;margin:0 auto;padding:24px">',
    ...blocks,
    `<p style="margin-top:32px;font-size:13px;color:#555555">${escapeHtml(FOOTER_TEXT)}</p>`,
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function button(url: string, label: string): string {
  const href = escapeHtml(url);
  return [
    `<p style="margin:24px 0"><a href="${href}" style="display:inline-block;padding:12px 20px;background:#0b57d0;color:#ffffff;text-decoration:none;border-radius:4px;font-weight:bold">${escapeHtml(label)}</a></p>`,
    `<p style="font-size:13px;color:#555555">If the button does not work, copy this address into your browser:<br><a href="${href}" style="color:#0b57d0;word-break:break-all">${href}</a></p>`,
  ].join('\n');
}

function messageBlock(senderName: string, message: string | null | undefined): { text: string[]; html: string[] } {
  if (message === undefined || message === null || message.trim() === '') return { text: [], html: [] };
  return {
    text: [`Message from ${senderName}:`, '', message.trim(), ''],
    html: [
      `<p>Message from ${escapeHtml(senderName)}:</p>`,
      `<blockquote style="margin:0 0 16px 0;padding:8px 16px;border-left:4px solid #cccccc">${paragraphs(message)}</blockquote>`,
    ],
  };
}

function textOf(lines: readonly string[]): string {
  return `${[...lines, '--', FOOTER_TEXT].join('\n').replace(/\r\n?/g, '\n')}\n`;
}

/** The first mail to a recipient: what to do, the sender's message, the personal link. */
export function invitationMail(data: SigningMailData): MailContent {
  const url = checkedUrl(data.signingUrl);
  const { verb, button: label } = VERB[data.action ?? 'sign'];
  const subject = headerText(`${data.senderName} sent you ${quoted(data.envelopeTitle)} to ${verb}`);
  const intro = `${data.senderName} has sent you the documents “${data.envelopeTitle}” to ${verb}.`;
  const message = messageBlock(data.senderName, data.message);
  const expiry = data.expiresAt ? `The link works until ${formatDate(data.expiresAt)}.` : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    ...message.text,
    `${label}: ${url}`,
    '',
    ...(expiry ? [expiry, ''] : []),
    'This link is personal: please do not forward this mail.',
    '',
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      ...message.html,
      button(url, `${label}: ${headerText(data.envelopeTitle, 150)}`),
      ...(expiry ? [`<p>${escapeHtml(expiry)}</p>`] : []),
      '<p>This link is personal: please do not forward this mail.</p>',
    ],
  });
  return { subject, text, html };
}

/** Sequential routing: the previous recipients are done, now this one may act. */
export function yourTurnMail(data: SigningMailData): MailContent {
  const url = checkedUrl(data.signingUrl);
  const { verb, button: label } = VERB[data.action ?? 'sign'];
  const subject = headerText(`Your turn to ${verb} ${quoted(data.envelopeTitle)}`);
  const intro = `The recipients before you have finished. It is now your turn to ${verb} “${data.envelopeTitle}”, sent by ${data.senderName}.`;
  const message = messageBlock(data.senderName, data.message);
  const expiry = data.expiresAt ? `The link works until ${formatDate(data.expiresAt)}.` : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    ...message.text,
    `${label}: ${url}`,
    '',
    ...(expiry ? [expiry, ''] : []),
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      ...message.html,
      button(url, `${label}: ${headerText(data.envelopeTitle, 150)}`),
      ...(expiry ? [`<p>${escapeHtml(expiry)}</p>`] : []),
    ],
  });
  return { subject, text, html };
}

/** A reminder to a recipient who has not acted yet. */
export function reminderMail(data: ReminderMailData): MailContent {
  const url = checkedUrl(data.signingUrl);
  const { verb, button: label } = VERB[data.action ?? 'sign'];
  const subject = headerText(`Reminder: ${quoted(data.envelopeTitle)} is waiting for you to ${verb}`);
  const since = data.sentAt ? ` on ${formatDate(data.sentAt)}` : '';
  const intro = `${data.senderName} sent you “${data.envelopeTitle}”${since}, and it is still waiting for you to ${verb}.`;
  const expiry = data.expiresAt ? `The link works until ${formatDate(data.expiresAt)}.` : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    `${label}: ${url}`,
    '',
    ...(expiry ? [expiry, ''] : []),
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      button(url, `${label}: ${headerText(data.envelopeTitle, 150)}`),
      ...(expiry ? [`<p>${escapeHtml(expiry)}</p>`] : []),
    ],
  });
  return { subject, text, html };
}

/** The envelope expires soon and this recipient has not acted yet (automatic reminders' expiry warning). */
export function expiryWarningMail(data: ReminderMailData & { readonly envelopeExpiresAt: string }): MailContent {
  const url = checkedUrl(data.signingUrl);
  const { verb, button: label } = VERB[data.action ?? 'sign'];
  const when = formatDate(data.envelopeExpiresAt);
  const subject = headerText(`${quoted(data.envelopeTitle)} expires on ${when}: please ${verb} it before then`);
  const intro = `${data.senderName} sent you “${data.envelopeTitle}” to ${verb}. It expires on ${when}; after that nobody can ${verb} it.`;
  const text = textOf([`Hello ${data.recipientName},`, '', intro, '', `${label}: ${url}`, '']);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      button(url, `${label}: ${headerText(data.envelopeTitle, 150)}`),
    ],
  });
  return { subject, text, html };
}

/** Everyone has acted: the signed PDFs are attached (the caller attaches them to the queued mail). */
export function completionMail(data: CompletionMailData): MailContent {
  const subject = headerText(`Completed: ${quoted(data.envelopeTitle)}`);
  const intro = `All recipients have finished “${data.envelopeTitle}”, sent by ${data.senderName}.`;
  const names = data.attachmentNames;
  const attached =
    names.length === 0
      ? undefined
      : names.length === 1
        ? 'The signed document is attached:'
        : 'The signed documents are attached:';
  const download = data.documentsUrl ? checkedUrl(data.documentsUrl) : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    ...(attached ? [attached, ...names.map((n) => `- ${n}`), ''] : []),
    ...(download ? [`Download: ${download}`, ''] : []),
    'Keep this mail for your records.',
    '',
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      ...(attached
        ? [`<p>${escapeHtml(attached)}</p>`, `<ul>${names.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`]
        : []),
      ...(download ? [button(download, 'Download the signed documents')] : []),
      '<p>Keep this mail for your records.</p>',
    ],
  });
  return { subject, text, html };
}

/** A recipient declined: the envelope stops; the reason is theirs. */
export function declinedMail(data: DeclinedMailData): MailContent {
  const subject = headerText(`Declined: ${quoted(data.envelopeTitle)}`);
  const intro = `${data.declinedBy} declined “${data.envelopeTitle}”, sent by ${data.senderName}. No one else will be asked to act on it.`;
  const reason = data.reason?.trim() ? data.reason.trim() : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    ...(reason ? ['Reason given:', '', reason, ''] : ['No reason was given.', '']),
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      ...(reason
        ? [
            '<p>Reason given:</p>',
            `<blockquote style="margin:0 0 16px 0;padding:8px 16px;border-left:4px solid #cccccc">${paragraphs(reason)}</blockquote>`,
          ]
        : ['<p>No reason was given.</p>']),
    ],
  });
  return { subject, text, html };
}

/** The sender voided the envelope: links stop working. */
export function voidedMail(data: VoidedMailData): MailContent {
  const subject = headerText(`Voided: ${quoted(data.envelopeTitle)}`);
  const intro = `${data.senderName} voided “${data.envelopeTitle}”. You no longer need to act on it, and its links no longer work.`;
  const reason = data.reason?.trim() ? data.reason.trim() : undefined;
  const text = textOf([
    `Hello ${data.recipientName},`,
    '',
    intro,
    '',
    ...(reason ? ['Reason given:', '', reason, ''] : []),
  ]);
  const html = page({
    subject,
    blocks: [
      `<p>Hello ${escapeHtml(data.recipientName)},</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      ...(reason
        ? [
            '<p>Reason given:</p>',
            `<blockquote style="margin:0 0 16px 0;padding:8px 16px;border-left:4px solid #cccccc">${paragraphs(reason)}</blockquote>`,
          ]
        : []),
    ],
  });
  return { subject, text, html };
}
