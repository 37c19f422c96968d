/** The account's mail outbox: what Mohar sent, is sending, failed to send or kept (no SMTP server set). */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { Nullable, problems, StringEnum, Uuid } from '../../http/schemas/common.js';
import { listAccountOutbox, MAIL_KINDS, MAIL_STATUSES, openAccountMail } from '../../domain/operators/outbox.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export const OutboxQuery = Type.Object({
  status: Type.Optional(StringEnum(MAIL_STATUSES, { description: 'only mails in this state' })),
  envelope_id: Type.Optional(Uuid),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, default 50' })),
  before: Type.Optional(
    Type.String({ format: 'uuid', description: 'paging: the id of the last mail of the previous page (next_before)' }),
  ),
  include: Type.Optional(StringEnum(['body'] as const, { description: 'body: add text and html' })),
});

export const MailAttachmentItem = Type.Object({
  filename: Type.String(),
  content_type: Type.String(),
  sha256: Type.String({ description: 'SHA-256 of the attached bytes' }),
  size: Type.Integer(),
});

export const OutboxMailItem = Type.Object({
  id: Uuid,
  to: Type.String(),
  to_name: Nullable(Type.String()),
  subject: Type.String(),
  kind: StringEnum(MAIL_KINDS),
  status: StringEnum(MAIL_STATUSES, {
    description: 'queued (not sent yet, or retrying), sent, failed (after the last attempt), kept (no SMTP server set)',
  }),
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
  envelope_id: Nullable(Type.String()),
  recipient_id: Nullable(Type.String()),
  attachments: Type.Array(MailAttachmentItem),
  test: Type.Boolean({ description: "a test envelope's mail (qsk_test_ key): kept in the outbox, never delivered" }),
  text: Type.Optional(Type.String({ description: 'with include=body' })),
  html: Type.Optional(Nullable(Type.String({ description: 'with include=body' }))),
});

export const OutboxResponse = Type.Object({
  items: Type.Array(OutboxMailItem, { description: 'newest first' }),
  next_before: Nullable(Type.String({ description: 'pass as before for the next page; null on the last page' })),
});

export const OpenedMailResponse = Type.Object({
  ...Type.Omit(OutboxMailItem, ['text', 'html']).properties,
  text: Type.String({ description: 'the plain text body (show it as text: it is not HTML)' }),
  html: Nullable(Type.String({ description: 'the HTML body as mailed, if any' })),
  links: Type.Array(Type.String(), {
    description: 'the http(s) links of the text body, in order, each once (a signing or set-password link)',
  }),
});

const MailParams = Type.Object({ mail_id: Uuid });

export function mailRoutes(app: App, ctx: Context): void {
  app.get(
    '/mail/outbox/',
    {
      onRequest: requireAdminLogin(ctx),
      schema: {
        operationId: 'listMailOutbox',
        tags: ['mail'],
        summary: "The account's mail outbox, newest first (no bodies unless include=body)",
        security: LOGIN,
        headers: BearerHeader,
        querystring: OutboxQuery,
        response: { 200: OutboxResponse, ...problems(401, 403, 422) },
      },
    },
    (request) => {
      const q = request.query;
      return listAccountOutbox(ctx, accountOf(request), {
        limit: q.limit ?? 50,
        ...(q.status ? { status: q.status } : {}),
        ...(q.envelope_id ? { envelopeId: q.envelope_id } : {}),
        ...(q.before ? { before: q.before } : {}),
        includeBody: q.include === 'body',
      });
    },
  );

  app.get(
    '/mail/outbox/:mail_id/',
    {
      onRequest: requireAdminLogin(ctx),
      schema: {
        operationId: 'getMailOutboxItem',
        tags: ['mail'],
        summary: 'One outbox mail with its body and the links in it (to hand a kept link over by hand)',
        security: LOGIN,
        headers: BearerHeader,
        params: MailParams,
        response: { 200: OpenedMailResponse, ...problems(401, 403, 404, 422) },
      },
    },
    (request) => openAccountMail(ctx, accountOf(request), request.params.mail_id),
  );
}
