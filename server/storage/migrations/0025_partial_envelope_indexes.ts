import type { Kysely } from 'kysely';

/**
 * Issue 30 (the create route): the envelope indexes on a column that most envelopes leave null hold only the rows
 * that set it. An API-key draft has no template, bulk send, creating user or external_id, so its row goes into
 * five of the envelope indexes instead of ten (a group commit writes that many fewer WAL pages; see
 * docs/performance-signing.md).
 *
 * Every query these indexes serve compares the column with `=` or `in`, which implies `is not null`, so SQLite and
 * PostgreSQL still use them; the unique ones refuse the same duplicates as before (nulls never collided).
 */
const PARTIAL = [
  { name: 'envelopes_list_template', columns: ['template_id', 'created_at', 'id'], column: 'template_id' },
  { name: 'envelopes_list_bulk', columns: ['bulk_send_id', 'created_at', 'id'], column: 'bulk_send_id' },
  { name: 'envelopes_bulk_row', columns: ['bulk_send_id', 'row_index'], column: 'bulk_send_id', unique: true },
  {
    name: 'envelopes_list_creator',
    columns: ['account_id', 'created_by_user_id', 'created_at', 'id'],
    column: 'created_by_user_id',
  },
  {
    name: 'envelopes_external_id',
    columns: ['account_id', 'mode', 'external_id'],
    column: 'external_id',
    unique: true,
  },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of PARTIAL) {
    await db.schema.dropIndex(index.name).execute();
    let create = db.schema
      .createIndex(index.name)
      .on('envelopes')
      .columns([...index.columns]);
    if ('unique' in index) create = create.unique();
    await create.where(index.column, 'is not', null).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of PARTIAL) {
    await db.schema.dropIndex(index.name).execute();
    let create = db.schema
      .createIndex(index.name)
      .on('envelopes')
      .columns([...index.columns]);
    if ('unique' in index) create = create.unique();
    await create.execute();
  }
}
