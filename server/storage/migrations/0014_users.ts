import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

/**
 * Issue 15, users and roles of an account.
 * - users.status: active | invited (no password yet) | deactivated (cannot log in); users.last_login_at.
 * - user_tokens: single-use links (invite: set the first password, 72 h; reset: forgotten password, 1 h);
 *   only the token's SHA-256 is stored, used_at marks it spent.
 * - account_audit_log: who did what, when, from which address (GET {legacy_base}/audit-log/).
 * - login_address_failures: failed logins per client address (throttling beside the per-login lockout).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();
  await db.schema.alterTable('users').addColumn('last_login_at', 'text').execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').column('user_id').execute();

  await db.schema
    .createTable('account_audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('account_audit_log_list')
    .on('account_audit_log')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('login_address_failures')
    .addColumn('id', isPostgres(db) ? 'serial' : 'integer', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('login_address_failures_address')
    .on('login_address_failures')
    .columns(['address', 'failed_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['login_address_failures', 'account_audit_log', 'user_tokens']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('users').dropColumn('last_login_at').execute();
  await db.schema.alterTable('users').dropColumn('status').execute();
}
