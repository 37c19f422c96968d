import type { Kysely } from 'kysely';

/**
 * Mock USB DSC requests of the sandbox ({api_base}/sandbox/mock-dsc/requests). Each is one envelope with one
 * DSC signer; the row adds the public id integrators address it by, the optional webhook endpoint that gets
 * its one envelope.completed event, and the summary of the ephemeral test certificate once signed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sandbox_requests')
    .addColumn('public_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('envelope_id', 'text', (c) => c.notNull().references('envelopes.id'))
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text', (c) => c.notNull())
    .addColumn('webhook_endpoint_id', 'text')
    .addColumn('certificate', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text')
    .execute();
  await db.schema
    .createIndex('sandbox_requests_envelope')
    .on('sandbox_requests')
    .column('envelope_id')
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sandbox_requests').execute();
}
