/**
 * An account's own mail server (issue 28, point 2; decision 38): one `mail_settings` row per account. The SMTP
 * password is sealed with the installation's secret box, bound to the account's row, and opened only to send.
 * Which server a mail actually goes through (the environment first) is decided in transport-settings.ts.
 */
import type { Kysely, Selectable } from 'kysely';
import type { SecretBox } from '../seal/secret-box.js';
import type { Database, MailSettingsTable, MailTlsMode } from '../storage/schema.js';

export type StoredMailSettings = Selectable<MailSettingsTable>;

/** What a save writes. `password`: a string replaces it, null removes it, undefined keeps the stored one. */
export interface MailSettingsToWrite {
  readonly host: string;
  readonly port: number;
  readonly tls: MailTlsMode;
  readonly username: string | null;
  readonly password: string | null | undefined;
  readonly fromAddress: string;
  readonly fromName: string | null;
  readonly updatedBy: string | null;
}

/** The additional data that binds a sealed password to its account's row. */
function passwordContext(accountId: string): string {
  return `mail_settings:${accountId}`;
}

export async function readStoredMailSettings(
  db: Kysely<Database>,
  accountId: string,
): Promise<StoredMailSettings | undefined> {
  return db.selectFrom('mail_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

export function openMailPassword(box: SecretBox, row: StoredMailSettings): string | null {
  if (row.password_sealed === null) return null;
  return box.open(row.password_sealed, passwordContext(row.account_id)).toString('utf8');
}

/** Inserts or replaces the account's row (one statement on both databases). */
export async function writeMailSettings(
  db: Kysely<Database>,
  box: SecretBox,
  accountId: string,
  settings: MailSettingsToWrite,
  at: string,
): Promise<StoredMailSettings> {
  const sealed =
    settings.password === undefined
      ? undefined
      : settings.password === null
        ? null
        : box.seal(settings.password, passwordContext(accountId));
  const values = {
    host: settings.host,
    port: settings.port,
    tls: settings.tls,
    username: settings.username,
    from_address: settings.fromAddress,
    from_name: settings.fromName,
    updated_at: at,
    updated_by: settings.updatedBy,
  };
  // A new row without a password given has none; an existing row keeps its own (password_sealed left out).
  await db
    .insertInto('mail_settings')
    .values({ account_id: accountId, ...values, password_sealed: sealed ?? null })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet(sealed === undefined ? values : { ...values, password_sealed: sealed }),
    )
    .execute();
  return (await readStoredMailSettings(db, accountId))!;
}

export async function deleteMailSettings(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.deleteFrom('mail_settings').where('account_id', '=', accountId).execute();
}
