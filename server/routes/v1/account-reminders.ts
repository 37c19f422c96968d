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
import type { App } from '../types.js';

export function accountReminderRoutes(app: App, ctx: Context): void {
  const onRequest = requireKeyOrLogin(ctx);
  const security: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }];
  app.get(
    '/account/reminders',
    {
      onRequest,
      schema: {
        tags: ['account'],
        summary: "The account's default automatic reminders (all null: manual only)",
        security,
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
        tags: ['account'],
        summary:
          "Replace the account's default automatic reminders (for envelopes without their own reminders); the API key or an admin login",
        security,
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
