import type { Kysely } from 'kysely';

/**
 * Issue 11 (points 7 and 4):
 *  - fields.editable: a value the sender pre-assigned is read-only for the signer unless the field says
 *    it is editable (0 or 1, default 0: read-only, the safe reading for rows made before this existed).
 *  - envelope_documents.certified / certification_skipped: whether the document was certified at send
 *    (DocMDP P=2 by the installation seal) and, when not, why. Both null while the envelope is a draft.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('fields')
    .addColumn('editable', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('envelope_documents').addColumn('certified', 'integer').execute();
  await db.schema.alterTable('envelope_documents').addColumn('certification_skipped', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelope_documents').dropColumn('certification_skipped').execute();
  await db.schema.alterTable('envelope_documents').dropColumn('certified').execute();
  await db.schema.alterTable('fields').dropColumn('editable').execute();
}
