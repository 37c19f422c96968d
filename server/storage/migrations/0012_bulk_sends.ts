import type { Kysely } from 'kysely';

/**
 * Issue 13, bulk send. A batch (bulk_sends) keeps a snapshot of its source (documents by id, recipients,
 * fields) taken when it was accepted, so later edits of the source draft cannot change rows still queued.
 * Every row is a bulk_send_rows row (primary key (bulk_send_id, row_index)).
 *
 * "Each row exactly once" is proven by the database, not by the job: the envelope a row creates carries
 * (bulk_send_id, row_index) and a UNIQUE index covers that pair, so the INSERT of a second envelope for
 * the same row fails inside the very transaction that would create it (a crash, a retry, a second
 * instance). NULLs are distinct in both databases, so ordinary envelopes never collide.
 * Building the envelope after that (documents, fields, send) is guarded by a short claim on the row
 * (claimed_by / claimed_until), so two workers never build the same draft at the same time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bulk_sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('source_version', 'integer')
    .addColumn('source_snapshot', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('canceled_at', 'text')
    .execute();
  await db.schema
    .createIndex('bulk_sends_account')
    .on('bulk_sends')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('bulk_send_rows')
    .addColumn('bulk_send_id', 'text', (c) => c.notNull().references('bulk_sends.id'))
    .addColumn('row_index', 'integer', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('envelope_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_send_rows_pk', ['bulk_send_id', 'row_index'])
    .execute();
  await db.schema
    .createIndex('bulk_send_rows_status')
    .on('bulk_send_rows')
    .columns(['bulk_send_id', 'status', 'row_index'])
    .execute();

  await db.schema.alterTable('envelopes').addColumn('bulk_send_id', 'text').execute();
  await db.schema.alterTable('envelopes').addColumn('row_index', 'integer').execute();
  await db.schema
    .createIndex('envelopes_bulk_row')
    .on('envelopes')
    .columns(['bulk_send_id', 'row_index'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelopes_bulk_row').execute();
  await db.schema.alterTable('envelopes').dropColumn('row_index').execute();
  await db.schema.alterTable('envelopes').dropColumn('bulk_send_id').execute();
  await db.schema.dropTable('bulk_send_rows').execute();
  await db.schema.dropTable('bulk_sends').execute();
}
