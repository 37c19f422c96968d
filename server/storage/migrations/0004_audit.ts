import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

/**
 * The envelope audit trail (server/audit): one hash chain per envelope, numbered 1, 2, 3... by `seq`.
 * Append-only: triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL), so changing a row takes
 * a deliberate schema change; the hash chain then shows it (`mohar audit verify`).
 * No foreign key to envelopes on purpose: the trail must outlive whatever happens to the envelope rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('envelope_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_events_pk', ['envelope_id', 'seq'])
    .execute();
  await db.schema.createIndex('audit_events_account').on('audit_events').columns(['account_id', 'at']).execute();

  if (isPostgres(db)) {
    await sql`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only';
      END
      $$`.execute(db);
    await sql`CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`.execute(
      db,
    );
    await sql`CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`.execute(
      db,
    );
  } else {
    await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(
      db,
    );
    await sql`CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  if (isPostgres(db)) await sql`DROP FUNCTION IF EXISTS audit_events_append_only()`.execute(db);
}
