import type { Kysely } from 'kysely';

/**
 * Issue 28: POST /verify finds the envelope a public upload belongs to by the SHA-256 of its bytes
 * (domain/verify/completed-envelope.ts, `envelope_documents.current_sha256 = ?`). Without an index every anonymous
 * upload scanned every document row of every account; with it the lookup is one index probe on both databases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('envelope_documents_current_sha256')
    .on('envelope_documents')
    .column('current_sha256')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelope_documents_current_sha256').execute();
}
