/**
 * Opens the database named by the config: a SQLite file in the data dir by default, PostgreSQL
 * for a postgres:// URL. Everything above this file talks Kysely and does not care which.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { SqliteFastPath } from './sqlite-fast-path.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Prepared statements and group commit on the SQLite connection (sqlite-fast-path.ts); none on PostgreSQL. */
  readonly sqlite?: SqliteFastPath;
  /** PostgreSQL only: statements prepared once per connection (pg-statement.ts). */
  readonly postgres?: NamedStatements;
  close(): Promise<void>;
}

/** Runs a statement by name: PostgreSQL parses and plans it once per pooled connection, not on every call. */
export interface NamedStatements {
  run(name: string, text: string, values: readonly unknown[]): Promise<{ rowCount: number }>;
}

export interface ConnectOptions {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Pool size for PostgreSQL. */
  readonly poolSize?: number;
}

export function connectStorage(options: ConnectOptions): Storage {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const postgres: NamedStatements = {
      run: async (name, text, values) => ({
        rowCount: (await pool.query({ name, text, values: [...values] })).rowCount ?? 0,
      }),
    };
    return { db, dialect: 'postgres', postgres, close: () => db.destroy() };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const file = new BetterSqlite3(join(options.dataDir, 'mohar.sqlite'));
  // WAL lets readers proceed during a write; busy_timeout covers a second process (e.g. the CLI).
  file.pragma('journal_mode = WAL');
  // FULL: every commit syncs the WAL, so an acknowledged write (a signature whose webhook went out) survives
  // a power loss; NORMAL only syncs at checkpoints. Its cost is in docs/performance.md (workflow).
  file.pragma('synchronous = FULL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // The fast path's group commit puts each write in a savepoint; keep their undo records (statement
  // journals) in memory instead of a temp file written page by page in every transaction.
  file.pragma('temp_store = MEMORY');
  // Checkpoint every 4000 WAL pages (16 MiB) instead of SQLite's 1000: hot pages (index tails, the
  // schema's upper levels) are rewritten by almost every commit, and a checkpoint copies each page once
  // and syncs twice however many commits it covers. See docs/decisions.md.
  file.pragma('wal_autocheckpoint = 4000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
  return { db, dialect: 'sqlite', sqlite: new SqliteFastPath(file, db), close: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 500;

const NOTHING_TO_ROLL_BACK: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

/**
 * Kysely's SQLite driver prepares every statement anew on every query, which costs about a third of a
 * simple request. better-sqlite3 runs statements synchronously and Kysely never iterates a statement
 * lazily here, so a prepared statement can be reused safely: keep the most recent ones by SQL text.
 */
function withStatementCache(file: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => file.close(),
    prepare(sql: string) {
      // On some errors (SQLITE_FULL: the disk is full; I/O errors) SQLite rolls the transaction back itself, and
      // the ROLLBACK Kysely then sends would fail with "no transaction is active", replacing the error that says
      // what happened (and that server/domain/storage-full.ts turns into 503 storage_full).
      if (sql === 'rollback' && !file.inTransaction) return NOTHING_TO_ROLL_BACK;
      let statement = cache.get(sql);
      if (statement === undefined || statement.busy) {
        statement = file.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** True when a write failed on a UNIQUE or PRIMARY KEY constraint, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
