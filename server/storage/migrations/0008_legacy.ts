import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

/**
 * The legacy document API and its limits.
 * - legacy_documents: the integer document id of an envelope made through {legacy_base}. The row is written
 *   first (to take the next id, which the envelope's metadata then names) and gets its envelope_id once the
 *   envelope exists. send_mail = 0 for headless (is_mail_required: false) and test-key documents.
 * - usage_counters: calls of the legacy create per account and calendar month (UTC), the monthly quota.
 * - rate_limit_counters: per-key request counts per one-minute window, shared by server instances on
 *   PostgreSQL (a single SQLite process counts in memory and leaves this table empty).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('legacy_documents')
    .addColumn('id', isPostgres(db) ? 'serial' : 'integer', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('envelope_id', 'text', (c) => c.references('envelopes.id'))
    .addColumn('send_mail', 'integer', (c) => c.notNull())
    .addColumn('test', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // NULLs are distinct: rows still being created never collide.
  await db.schema
    .createIndex('legacy_documents_envelope')
    .on('legacy_documents')
    .column('envelope_id')
    .unique()
    .execute();

  await db.schema
    .createTable('usage_counters')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addColumn('test_calls', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_counters_pk', ['account_id', 'period'])
    .execute();

  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('key_id', 'text', (c) => c.notNull())
    // Minutes since the Unix epoch: the window's number.
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['key_id', 'minute'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rate_limit_counters', 'usage_counters', 'legacy_documents']) {
    await db.schema.dropTable(table).execute();
  }
}
