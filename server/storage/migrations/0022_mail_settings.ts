import type { Kysely } from 'kysely';

/**
 * Issue 28, point 2: an account's own mail server, set in the console (decision 38). One row per account;
 * no row means "no mail server of its own" (the environment's MOHAR_SMTP_URL, else mail is kept in the outbox).
 * The password is stored sealed with the installation's secret box, bound to the account's row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('tls', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('password_sealed', 'text')
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_settings').execute();
}
