/** The account's default automatic reminder settings (issue 16, point 6; docs/workflow.md, "Reminders"). */
import type { Context } from '../../domain/context.js';
import {
  readAccountReminders,
  writeAccountReminders,
  NO_REMINDERS,
  type ReminderSettings,
} from '../../domain/workflow/reminder-settings.js';
import { accountOf, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { ReminderSettingsBody } from '../../http/schemas/reminders.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function accountReminderRoutes(app: App, ctx: Context): void {
  const onRequest = requireKeyOrLogin(ctx);
  app.get(
    '/account/reminders',
    {
      onRequest,
      schema: {
        operationId: 'getReminderDefaults',
        tags: ['account'],
        summary: "The account's default automatic reminders (all null: manual only)",
        security: API_KEY_OR_LOGIN,
        response: { 200: ReminderSettingsBody, ...problems(401, 403) },
      },
    },
    (request) => readAccountReminders(ctx.db, accountOf(request)),
  );
  app.put(
    '/account/reminders',
    {
      onRequest,
      schema: {
        operationId: 'setReminderDefaults',
        tags: ['account'],
        summary:
          "Replace the account's default automatic reminders (for envelopes without their own reminders); the API key or an admin login",
        security: API_KEY_OR_LOGIN,
        body: ReminderSettingsBody,
        response: { 200: ReminderSettingsBody, ...problems(401, 403, 422) },
      },
    },
    (request) => {
      const body: Partial<ReminderSettings> = request.body;
      return writeAccountReminders(ctx.db, accountOf(request), { ...NO_REMINDERS, ...body });
    },
  );
}
