/**
 * The account's mail server (issue 28, point 2; decision 38): admins (and the api_admin login) read and change
 * it and send a test mail. The password is write-only. With MOHAR_SMTP_URL set the environment wins: GET says
 * source "environment" and PUT and DELETE answer 409 mail_settings_locked.
 */
import type { Context } from '../../domain/context.js';
import { readMailSettings } from '../../domain/mail-settings/mail-settings-view.js';
import { removeMailSettings, saveMailSettings } from '../../domain/mail-settings/save-mail-settings.js';
import { sendTestMail } from '../../domain/mail-settings/send-test-mail.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import {
  MailSettingsBody,
  MailSettingsResponse,
  TestMailBody,
  TestMailResponse,
} from '../../http/schemas/mail-settings.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function mailSettingsRoutes(app: App, ctx: Context): void {
  const onRequest = requireAdminLogin(ctx);
  const common = { tags: ['mail'], security: LOGIN, headers: BearerHeader };

  app.get(
    '/mail/settings/',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'getMailSettings',
        summary: "The mail server of the account's mail (without the password) and where it comes from",
        response: { 200: MailSettingsResponse, ...problems(401, 403) },
      },
    },
    (request) => readMailSettings(ctx, accountOf(request)),
  );

  app.put(
    '/mail/settings/',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'saveMailSettings',
        summary: "Set the account's mail server; it applies to the next mail, without a restart",
        description:
          'Leave out password (or send it empty) to keep the stored one; null removes it. 409 mail_settings_locked while MOHAR_SMTP_URL is set.',
        body: MailSettingsBody,
        response: { 200: MailSettingsResponse, ...problems(401, 403, 409, 422) },
      },
    },
    (request) => saveMailSettings(ctx, accountOf(request), request.user?.userId ?? null, request.body),
  );

  app.delete(
    '/mail/settings/',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'removeMailSettings',
        summary: "Forget the account's mail server: its mail is kept in the outbox again",
        description: '409 mail_settings_locked while MOHAR_SMTP_URL is set.',
        response: { 200: MailSettingsResponse, ...problems(401, 403, 409) },
      },
    },
    (request) => removeMailSettings(ctx, accountOf(request)),
  );

  app.post(
    '/mail/settings/test/',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'sendTestMail',
        summary: 'Send a test mail now through the mail server that applies (at most 30 s)',
        description:
          "200 whether or not it was delivered: sent says which, detail says the server's answer or what went wrong in words. 409 smtp_not_configured without any mail server.",
        body: TestMailBody,
        response: { 200: TestMailResponse, ...problems(401, 403, 409, 422) },
      },
    },
    (request) => sendTestMail(ctx, accountOf(request), request.body.to),
  );
}
