import { sql, type Kysely } from 'kysely';

/**
 * The installation's seal key (server/seal/installation-seal.ts). Several server instances on one
 * PostgreSQL database must share ONE seal: a partial unique index allows one active row per kind,
 * so the loser of a concurrent first start gets a unique violation and reads the winner's row.
 * Certificates are base64 DER text and the private key is a secret-box string (never clear), so the
 * columns are plain text on both databases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('seal_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('certificate', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // Partial indexes work the same on SQLite (3.8+) and PostgreSQL.
  await db.schema
    .createIndex('seal_keys_one_active')
    .on('seal_keys')
    .column('kind')
    .unique()
    .where(sql<boolean>`active = 1`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('seal_keys').execute();
}
