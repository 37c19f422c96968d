/** The account's mail server (issue 28, point 2): what GET shows, what PUT takes, the test mail. */
import { Type } from 'typebox';
import { MAIL_TLS_MODES } from '../../domain/mail-settings/mail-settings-view.js';
import { Nullable, StringEnum } from './common.js';

const TLS_DESCRIPTION =
  'none: plain; starttls: upgrade after connecting (usually port 587); tls: TLS from the start (465)';

export const MailSettingsResponse = Type.Object({
  source: StringEnum(['environment', 'account', 'none'] as const, {
    description:
      "which server this account's mail goes through: environment (MOHAR_SMTP_URL, wins, read-only here), account (saved here), none (mail is kept in the outbox)",
  }),
  host: Nullable(Type.String()),
  port: Nullable(Type.Integer()),
  tls: Nullable(StringEnum(MAIL_TLS_MODES, { description: TLS_DESCRIPTION })),
  username: Nullable(Type.String({ description: 'null with source environment (not shown) or without login' })),
  password_set: Type.Boolean({ description: 'whether a password is stored; the password itself is never returned' }),
  from_address: Nullable(Type.String()),
  from_name: Nullable(Type.String()),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
});

const OneLine = (maxLength: number, description: string) =>
  Type.String({ maxLength, pattern: '^[^\\r\\n]*$', description });

export const MailSettingsBody = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^\\s*[A-Za-z0-9._:\\[\\]-]+\\s*$',
      description: 'host name or IP address of the SMTP server (no scheme, no port)',
    }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    tls: StringEnum(MAIL_TLS_MODES, { description: TLS_DESCRIPTION }),
    username: Type.Optional(Nullable(OneLine(256, 'SMTP login; empty or null: no login'))),
    password: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 1024,
          description: 'absent or empty: keep the stored password; null: remove it. Stored encrypted, never returned',
        }),
      ),
    ),
    from_address: Type.String({ minLength: 3, maxLength: 320, description: "the From address of the account's mail" }),
    from_name: Type.Optional(Nullable(OneLine(200, 'the From display name, e.g. the company name'))),
  },
  { additionalProperties: false },
);

export const TestMailBody = Type.Object(
  { to: Type.String({ minLength: 3, maxLength: 320, description: 'one address to send the test mail to' }) },
  { additionalProperties: false },
);

export const TestMailResponse = Type.Object({
  sent: Type.Boolean({ description: 'whether the SMTP server accepted the test mail' }),
  source: StringEnum(['environment', 'account'] as const),
  server: Type.String({ description: 'host:port tried' }),
  detail: Type.String({ description: "the server's acceptance, or what went wrong in words" }),
});
