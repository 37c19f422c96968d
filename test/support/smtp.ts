/**
 * A real SMTP server on loopback for mail tests (smtp-server), with a minimal MIME reader of its
 * own: headers (unfolded, RFC 2047 words decoded), multipart bodies, quoted-printable and base64
 * parts, attachments as bytes. Enough for the mails Mohar sends; not a general mail parser.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface ReceivedMail {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO). */
  to: string[];
  raw: Buffer;
  /** Top-level headers, lower-case names, decoded. */
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string | undefined;
  attachments: ReceivedAttachment[];
}

export interface SmtpTestServer {
  /** smtp://127.0.0.1:<port> */
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Resolves once at least `count` messages arrived (rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface SmtpOptions {
  /** Refuse every message with this SMTP error (e.g. to test retries against a live but unhappy server). */
  readonly rejectWith?: { code: number; message: string };
  /** Offer AUTH (over plain text, as tests run without TLS) and accept only this user name and password. */
  readonly auth?: { user: string; pass: string };
}

export async function startSmtp(options: SmtpOptions = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    authOptional: options.auth === undefined,
    disabledCommands: options.auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const ok =
        options.auth !== undefined && auth.username === options.auth.user && auth.password === options.auth.pass;
      if (!ok) callback(new Error('Invalid username or password'));
      else callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.rejectWith) {
          const error = new Error(options.rejectWith.message) as Error & { responseCode: number };
          error.responseCode = options.rejectWith.code;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const to = session.envelope.rcptTo.map((r) => r.address);
        messages.push({ from, to, raw, ...parseMessage(raw) });
        for (const waiter of [...waiters]) {
          if (messages.length >= waiter.count) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      if (messages.length < count) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`expected ${count} mail(s), got ${messages.length} within ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiters.push({
            count,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on loopback where nothing listens (for "SMTP is down"). */
export async function closedSmtpUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `smtp://127.0.0.1:${port}`;
}

interface Part {
  headers: Map<string, string>;
  body: Buffer;
}

function splitHeaders(raw: Buffer): Part {
  const text = raw.toString('latin1');
  const match = /\r?\n\r?\n/.exec(text);
  const headerText = match ? text.slice(0, match.index) : text;
  const bodyStart = match ? match.index + match[0].length : text.length;
  const headers = new Map<string, string>();
  for (const line of headerText.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = decodeWords(Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { headers, body: raw.subarray(Buffer.byteLength(text.slice(0, bodyStart), 'latin1')) };
}

/** RFC 2047 encoded words: =?charset?Q|B?text?= (adjacent words join without the space between). */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?[^?]+\?[QqBb]\?[^?]*\?=)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, charset: string, encoding: string, data: string) => {
      const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data.replace(/_/g, ' '));
      return new TextDecoder(charset.toLowerCase()).decode(bytes);
    });
}

function qpBytes(text: string): Buffer {
  const clean = text.replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(clean.slice(i + 1, i + 3))) {
      out.push(parseInt(clean.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      out.push(clean.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** `type/subtype; a=b; c="d"` into the type and its parameters (RFC 2231 `name*=utf-8''…` decoded). */
function parameters(value: string): { value: string; params: Map<string, string> } {
  const [first, ...rest] = value.split(/;(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  const params = new Map<string, string>();
  for (const item of rest) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    let name = item.slice(0, eq).trim().toLowerCase();
    let v = item
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (name.endsWith('*')) {
      name = name.slice(0, -1);
      const m = /^([^']*)'[^']*'(.*)$/.exec(v);
      if (m) v = decodeURIComponent(m[2]!);
    }
    params.set(name, v);
  }
  return { value: (first ?? '').trim().toLowerCase(), params };
}

function decodeBody(part: Part): Buffer {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.toString('latin1').replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return qpBytes(part.body.toString('latin1'));
  return part.body;
}

function leaves(part: Part): Part[] {
  const type = parameters(part.headers.get('content-type') ?? 'text/plain');
  if (!type.value.startsWith('multipart/')) return [part];
  const boundary = type.params.get('boundary');
  if (!boundary) return [];
  const text = part.body.toString('latin1');
  const delimiter = `--${boundary}`;
  const pieces = text.split(new RegExp(`\\r?\\n?${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  // pieces[0] is the preamble; the piece after the closing delimiter starts with "--".
  return pieces
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .flatMap((p) => leaves(splitHeaders(Buffer.from(p.replace(/^[ \t]*\r?\n/, ''), 'latin1'))));
}

export function parseMessage(raw: Buffer): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html' | 'attachments'> {
  const top = splitHeaders(raw);
  let text = '';
  let html: string | undefined;
  const attachments: ReceivedAttachment[] = [];
  for (const leaf of leaves(top)) {
    const type = parameters(leaf.headers.get('content-type') ?? 'text/plain; charset=us-ascii');
    const disposition = parameters(leaf.headers.get('content-disposition') ?? 'inline');
    const bytes = decodeBody(leaf);
    const filename = disposition.params.get('filename') ?? type.params.get('name');
    if (disposition.value === 'attachment' || (filename !== undefined && !type.value.startsWith('text/'))) {
      attachments.push({ filename: filename ?? '', contentType: type.value, content: bytes });
    } else if (type.value === 'text/html' && html === undefined) {
      html = new TextDecoder(type.params.get('charset') ?? 'utf-8').decode(bytes);
    } else if (type.value === 'text/plain' && text === '') {
      text = new TextDecoder(type.params.get('charset') ?? 'utf-8').decode(bytes).replace(/\r\n/g, '\n');
    }
  }
  return { headers: top.headers, subject: top.headers.get('subject') ?? '', text, html, attachments };
}
