/**
 * Automatic reminder settings (issue 16, point 6): first_after_days (the first reminder, N days after the
 * recipient's turn began), every_days (then every M days), expiry_warning_days (one warning K days before the
 * envelope expires). Each is a whole number of days, 1 to 365, or null (off).
 *
 * The account's defaults live in accounts.settings.reminders (GET/PUT {api_base}/account/reminders); an
 * envelope's own settings (envelopes.reminders, set on create or PATCH) replace them as a whole; an envelope
 * without its own (null) follows the account's defaults as they are when the reminder is due. Neither set:
 * reminders are manual only.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database } from '../../storage/schema.js';

export const MAX_REMINDER_DAYS = 365;

export interface ReminderSettings {
  first_after_days: number | null;
  every_days: number | null;
  expiry_warning_days: number | null;
}

const MEMBERS = ['first_after_days', 'every_days', 'expiry_warning_days'] as const;

export const NO_REMINDERS: ReminderSettings = { first_after_days: null, every_days: null, expiry_warning_days: null };

/** Checks settings from a request (the route schemas check them too; the domain does not trust its callers). */
export function checkReminderSettings(input: Partial<ReminderSettings>, path: string): ReminderSettings {
  const settings = { ...NO_REMINDERS, ...input };
  const errors = MEMBERS.flatMap((member) => {
    const value = settings[member];
    return value === null || (Number.isInteger(value) && value >= 1 && value <= MAX_REMINDER_DAYS)
      ? []
      : [
          {
            path: `${path}/${member}`,
            message: `must be a whole number of days from 1 to ${MAX_REMINDER_DAYS}, or null`,
          },
        ];
  });
  if (errors.length > 0) {
    throw new MoharError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  return {
    first_after_days: settings.first_after_days,
    every_days: settings.every_days,
    expiry_warning_days: settings.expiry_warning_days,
  };
}

/** Stored JSON (envelopes.reminders, accounts.settings.reminders) as settings; null when absent or not an object. */
export function parseReminderSettings(stored: unknown): ReminderSettings | null {
  const value = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  if (value === null || typeof value !== 'object') return null;
  const raw = value as Record<string, unknown>;
  const day = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : null);
  return {
    first_after_days: day(raw.first_after_days),
    every_days: day(raw.every_days),
    expiry_warning_days: day(raw.expiry_warning_days),
  };
}

/** The account's defaults; all null when never set. */
export async function readAccountReminders(db: Kysely<Database>, accountId: string): Promise<ReminderSettings> {
  const row = await db.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirstOrThrow();
  return parseReminderSettings((JSON.parse(row.settings) as { reminders?: unknown }).reminders) ?? NO_REMINDERS;
}

/** Replaces the account's defaults (the other account settings are kept). */
export async function writeAccountReminders(
  db: Kysely<Database>,
  accountId: string,
  input: ReminderSettings,
): Promise<ReminderSettings> {
  const settings = checkReminderSettings(input, '');
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('accounts')
      .select('settings')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const merged = { ...(JSON.parse(row.settings) as object), reminders: settings };
    await trx
      .updateTable('accounts')
      .set({ settings: JSON.stringify(merged) })
      .where('id', '=', accountId)
      .execute();
  });
  return settings;
}
