import type { Kysely } from 'kysely';

/**
 * Issue 18, Aadhaar eSign: one row per eSign transaction (the `txn` of the Esign request).
 *
 * - id: the txn Mohar sends (random, unguessable); the ESP echoes it in EsignResp.
 * - account_id, envelope_id, recipient_id: who it is bound to; the response is applied to nobody else.
 * - session_token_hash: the signing link it was started from; return_token: that link's token, secret-box
 *   sealed (context: the txn id), to send the signer back to their signing page after the ESP.
 * - documents: JSON [{ document_id, from_sha256 (the current revision it was prepared on), prepared_sha256
 *   (the blob of the prepared revision with its empty signature), byte_range, contents_offset,
 *   contents_length, digest (hex SHA-256 of the ByteRange = the InputHash) }]. The prepared revision is
 *   not the document until the act succeeds.
 * - field_values: JSON [[field_id, value]] the act stores with the signature.
 * - state: pending | signed | failed; used_at: when a response consumed it (single use); expires_at: 30 min.
 * - response_code / error_code / error_message: the ESP's resCode, errCode and errMsg of the last response.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('esign_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('envelope_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text', (c) => c.notNull())
    .addColumn('session_token_hash', 'text', (c) => c.notNull())
    .addColumn('return_token', 'text', (c) => c.notNull())
    .addColumn('documents', 'text', (c) => c.notNull())
    .addColumn('field_values', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('response_code', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .execute();
  await db.schema
    .createIndex('esign_transactions_recipient')
    .on('esign_transactions')
    .columns(['recipient_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('esign_transactions_recipient').execute();
  await db.schema.dropTable('esign_transactions').execute();
}
