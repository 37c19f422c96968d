import { sql, type Kysely } from 'kysely';
import { binaryType, isPostgres } from './dialect.js';

/**
 * Content-addressed PDF bytes. On PostgreSQL they live in the database so several server
 * instances share them; SQLite installations keep them as files in the data dir (a table is
 * still created there so the schema is the same, but it stays empty).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('data', binaryType(db), (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (isPostgres(db)) {
    // PDFs are mostly compressed already; skip TOAST compression to save CPU on write and read.
    await sql`ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('blobs').execute();
}
