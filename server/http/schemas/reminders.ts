/** Automatic reminder settings (domain/workflow/reminder-settings.ts): account defaults and an envelope's own. */
import { Type, type Static, type TSchema } from 'typebox';
import { MAX_REMINDER_DAYS } from '../../domain/workflow/reminder-settings.js';

/** Nullable as `type: [T, "null"]`, not anyOf: one error per bad member (as in schemas/envelope-edits.ts). */
const OrNull = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });
const Days = (description: string) =>
  Type.Optional(OrNull(Type.Integer({ minimum: 1, maximum: MAX_REMINDER_DAYS, description })));

export const ReminderSettingsBody = Type.Object(
  {
    first_after_days: Days(
      "the first reminder, this many days after the recipient's turn began; null: no automatic reminders",
    ),
    every_days: Days('then a reminder every this many days after the last one; null: only the first'),
    expiry_warning_days: Days('one warning this many days before the envelope expires; null: none'),
  },
  {
    additionalProperties: false,
    description: `Automatic reminders: whole days from 1 to ${MAX_REMINDER_DAYS}, or null (off; an absent member is null). Never more than one reminder a day per recipient; a manual remind counts. See docs/workflow.md, "Reminders".`,
    examples: [{ first_after_days: 3, every_days: 2, expiry_warning_days: 1 }],
  },
);

/** On an envelope: its own settings, or null to follow the account's defaults. */
export const EnvelopeReminders = Type.Unsafe<Static<typeof ReminderSettingsBody> | null>({
  ...ReminderSettingsBody,
  type: ['object', 'null'],
  description:
    "the envelope's own automatic reminder settings (replacing the account's as a whole); null: the account's defaults (GET {api_base}/account/reminders) apply. PATCH may change reminders alone while the envelope is in progress",
});
