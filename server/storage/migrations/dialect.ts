import { PostgresAdapter, type Kysely } from 'kysely';

/** Migrations are shared by both databases; these helpers cover the few type names that differ. */
export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export function binaryType(db: Kysely<unknown>): 'bytea' | 'blob' {
  return isPostgres(db) ? 'bytea' : 'blob';
}
