import type { Kysely } from 'kysely';

/**
 * Issue 29, point 6: retention (docs/operations.md, "Retention"; decision 41).
 *
 * - accounts.retention_days: the account's policy: a finished envelope's documents are purged this many days
 *   after it finished; null (the default) keeps them for ever.
 * - templates.retention_days: the latest version's settings.retention_days, copied here (like templates.name)
 *   so the purge job finds the envelopes made from a template with a policy of its own without reading JSON;
 *   null: the account's policy applies.
 * - envelopes.legal_hold_at / _by / _reason: a legal hold; while legal_hold_at is set nothing is purged.
 * - envelopes.purged_at: when its documents were purged. Rows that name blobs (revisions, current hashes) stay,
 *   so the hashes remain; the blob collector no longer counts them as references once this is set.
 * - documents.purged_at: the workspace document of a purged envelope that nothing else used; refused when named
 *   again, and no reference for the blob collector (unless a live envelope attached it meanwhile).
 * The index serves the purge job's search: envelopes not purged yet, by status, oldest change first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('retention_days', 'integer').execute();
  await db.schema.alterTable('templates').addColumn('retention_days', 'integer').execute();
  for (const column of ['legal_hold_at', 'legal_hold_by', 'legal_hold_reason', 'purged_at']) {
    await db.schema.alterTable('envelopes').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('documents').addColumn('purged_at', 'text').execute();
  await db.schema
    .createIndex('envelopes_retention')
    .on('envelopes')
    .columns(['purged_at', 'status', 'updated_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelopes_retention').execute();
  await db.schema.alterTable('documents').dropColumn('purged_at').execute();
  for (const column of ['purged_at', 'legal_hold_reason', 'legal_hold_by', 'legal_hold_at']) {
    await db.schema.alterTable('envelopes').dropColumn(column).execute();
  }
  await db.schema.alterTable('templates').dropColumn('retention_days').execute();
  await db.schema.alterTable('accounts').dropColumn('retention_days').execute();
}
