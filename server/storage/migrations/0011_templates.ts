import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

/**
 * Issue 12, templates. A template row is the identity and the two pointers that move (latest version,
 * archived); every definition (settings, roles, documents by SHA-256, fields) lives in an immutable
 * template_versions row, and every change is also an append-only template_audit row (a hash chain per
 * template, like audit_events per envelope). Triggers refuse UPDATE and DELETE on both, so "never
 * modified in place" is enforced by the database, not only by the code. Envelopes made from a template
 * remember the version they are pinned to.
 */
const APPEND_ONLY = ['template_versions', 'template_audit'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('templates_account')
    .on('templates')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('template_versions')
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('template_versions_pk', ['template_id', 'version'])
    .execute();

  await db.schema
    .createTable('template_audit')
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('template_audit_pk', ['template_id', 'seq'])
    .execute();

  await db.schema.alterTable('envelopes').addColumn('template_id', 'text').execute();
  await db.schema.alterTable('envelopes').addColumn('template_version', 'integer').execute();

  if (isPostgres(db)) {
    await sql`
      CREATE FUNCTION template_rows_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
      END
      $$`.execute(db);
    for (const table of APPEND_ONLY) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_no_change`)} BEFORE UPDATE OR DELETE ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION template_rows_append_only()`.execute(
        db,
      );
    }
  } else {
    for (const table of APPEND_ONLY) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_no_update`)} BEFORE UPDATE ON ${sql.table(table)} BEGIN SELECT RAISE(ABORT, ${sql.lit(`${table} is append-only`)}); END`.execute(
        db,
      );
      await sql`CREATE TRIGGER ${sql.id(`${table}_no_delete`)} BEFORE DELETE ON ${sql.table(table)} BEGIN SELECT RAISE(ABORT, ${sql.lit(`${table} is append-only`)}); END`.execute(
        db,
      );
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelopes').dropColumn('template_version').execute();
  await db.schema.alterTable('envelopes').dropColumn('template_id').execute();
  for (const table of ['template_audit', 'template_versions', 'templates']) await db.schema.dropTable(table).execute();
  if (isPostgres(db)) await sql`DROP FUNCTION template_rows_append_only()`.execute(db);
}
