import type { Kysely } from 'kysely';

/**
 * Issue 12, an instantiated draft keeps its field layout by reference to its template version:
 * pending_layout is JSON { recipients: [recipient id per role], values: { field_key: value } }, and while it is
 * set the envelope has no rows in `fields` (domain/envelopes/field-rows.ts makes them from the version when read,
 * and writes them when the draft's layout or recipients change, or it is sent). Null for every other envelope,
 * including every envelope from before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelopes').addColumn('pending_layout', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelopes').dropColumn('pending_layout').execute();
}
