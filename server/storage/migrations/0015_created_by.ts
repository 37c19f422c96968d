import type { Kysely } from 'kysely';

/**
 * Issue 15, "Envelopes and templates record the user who created them; the list can filter 'mine'".
 * created_by_user_id: the console user who created it; null when made with an API key or by the system
 * (rows from before this migration stay null: who made them is not known).
 * `?mine=true` is one more way into the list, so it gets its own index ending in (created_at, id), like the
 * others of 0013_envelope_list: a page is an index range walked newest first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelopes').addColumn('created_by_user_id', 'text').execute();
  await db.schema.alterTable('templates').addColumn('created_by_user_id', 'text').execute();
  await db.schema
    .createIndex('envelopes_list_creator')
    .on('envelopes')
    .columns(['account_id', 'created_by_user_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('templates_list_creator')
    .on('templates')
    .columns(['account_id', 'created_by_user_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('templates_list_creator').execute();
  await db.schema.dropIndex('envelopes_list_creator').execute();
  await db.schema.alterTable('templates').dropColumn('created_by_user_id').execute();
  await db.schema.alterTable('envelopes').dropColumn('created_by_user_id').execute();
}
