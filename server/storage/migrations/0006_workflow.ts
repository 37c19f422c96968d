import type { Kysely } from 'kysely';

/**
 * The envelope workflow: sending, acts, completion. Document revisions (every act appends one), signing
 * sessions (stored by token hash), and the event outbox written in the same transaction as each state change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of [
    ['sent_at', 'text'],
    ['completed_at', 'text'],
    ['expires_at', 'text'],
    ['status_reason', 'text'],
    ['pades_level', 'text'],
    ['certificate_sha256', 'text'],
    ['events_seq', 'integer'],
  ] as const) {
    await db.schema
      .alterTable('envelopes')
      .addColumn(column, type, (c) => (column === 'events_seq' ? c.notNull().defaultTo(0) : c))
      .execute();
  }
  for (const column of ['viewed_at', 'acted_at', 'decline_reason', 'act_details', 'reminded_at', 'prepared_sha256']) {
    await db.schema.alterTable('recipients').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('envelope_documents').addColumn('current_sha256', 'text').execute();

  await db.schema
    .createTable('document_revisions')
    .addColumn('envelope_id', 'text', (c) => c.notNull().references('envelopes.id'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('act', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_revisions_pk', ['envelope_id', 'document_id', 'seq'])
    .execute();

  await db.schema
    .createTable('signing_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('envelope_id', 'text', (c) => c.notNull().references('envelopes.id'))
    .addColumn('recipient_id', 'text', (c) => c.notNull().references('recipients.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('origin', 'text')
    .addColumn('return_url', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('envelope_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account').on('events').columns(['account_id', 'created_at']).execute();
  await db.schema
    .createIndex('events_envelope_sequence')
    .on('events')
    .columns(['envelope_id', 'sequence'])
    .unique()
    .execute();
  await db.schema.createIndex('envelopes_expiry').on('envelopes').columns(['status', 'expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelopes_expiry').execute();
  for (const table of ['events', 'signing_sessions', 'document_revisions']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('envelope_documents').dropColumn('current_sha256').execute();
  for (const column of ['viewed_at', 'acted_at', 'decline_reason', 'act_details', 'reminded_at', 'prepared_sha256']) {
    await db.schema.alterTable('recipients').dropColumn(column).execute();
  }
  for (const column of [
    'sent_at',
    'completed_at',
    'expires_at',
    'status_reason',
    'pades_level',
    'certificate_sha256',
    'events_seq',
  ]) {
    await db.schema.alterTable('envelopes').dropColumn(column).execute();
  }
}
