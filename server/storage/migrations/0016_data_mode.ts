import { sql, type Kysely } from 'kysely';

/**
 * Issue 16 points 4 and 5: live and test data apart, and the envelope's own delivery.
 *
 * - envelopes.mode, documents.mode, bulk_sends.mode: 'live' or 'test', from the key that made the row (a
 *   console login is live). A caller sees only rows of its own mode (server/domain/envelopes/find-envelope.ts).
 * - envelopes.send_mail: 1 when Mohar mails the recipients (delivery "email"), 0 for delivery "none". Set by the
 *   creator (v1 create, legacy create from is_mail_required, the sandbox), so the workflow reads the envelope's
 *   own column instead of asking the legacy and sandbox tables.
 * - outbox_mail.test: 1 for a test envelope's mail: kept in the outbox, never delivered.
 * - external_id is unique per account and mode (envelopes_external_id): a live envelope's reference must not
 *   answer a test key's create with 409, which would tell it the live id exists.
 *
 * Backfill: everything is live and mailed, except what the data says otherwise: legacy documents made with a
 * test key (legacy_documents.test) and the sandbox's requests (only test keys make them) are test; a legacy
 * document's send_mail is copied (it was 0 for headless and test documents); the sandbox never mailed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('envelopes')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await db.schema
    .alterTable('envelopes')
    .addColumn('send_mail', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('documents')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await db.schema
    .alterTable('bulk_sends')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await db.schema
    .alterTable('outbox_mail')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await sql`UPDATE envelopes SET mode = 'test' WHERE id IN (SELECT envelope_id FROM legacy_documents WHERE test = 1 AND envelope_id IS NOT NULL)`.execute(
    db,
  );
  await sql`UPDATE envelopes SET send_mail = 0 WHERE id IN (SELECT envelope_id FROM legacy_documents WHERE send_mail = 0 AND envelope_id IS NOT NULL)`.execute(
    db,
  );
  await sql`UPDATE envelopes SET mode = 'test', send_mail = 0 WHERE id IN (SELECT envelope_id FROM sandbox_requests)`.execute(
    db,
  );
  await sql`UPDATE documents SET mode = 'test' WHERE id IN (SELECT document_id FROM envelope_documents WHERE envelope_id IN (SELECT id FROM envelopes WHERE mode = 'test'))`.execute(
    db,
  );
  await sql`UPDATE outbox_mail SET test = 1 WHERE envelope_id IN (SELECT id FROM envelopes WHERE mode = 'test')`.execute(
    db,
  );

  await db.schema.dropIndex('envelopes_external_id').execute();
  await db.schema
    .createIndex('envelopes_external_id')
    .on('envelopes')
    .columns(['account_id', 'mode', 'external_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelopes_external_id').execute();
  await db.schema
    .createIndex('envelopes_external_id')
    .on('envelopes')
    .columns(['account_id', 'external_id'])
    .unique()
    .execute();
  await db.schema.alterTable('outbox_mail').dropColumn('test').execute();
  await db.schema.alterTable('bulk_sends').dropColumn('mode').execute();
  await db.schema.alterTable('documents').dropColumn('mode').execute();
  await db.schema.alterTable('envelopes').dropColumn('send_mail').execute();
  await db.schema.alterTable('envelopes').dropColumn('mode').execute();
}
