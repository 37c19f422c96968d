/**
 * The SQLite side of a backup: a consistent copy of the live database through SQLite's online backup API, and
 * Kysely over such a copy (to read its blob references and audit trails, or to hold its webhooks after a restore).
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { MoharError } from '../../common/errors.js';
import type { Database } from '../storage/schema.js';

/** SQLite's largest page count for one backup step: the whole database in one step. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the live database `source` (in WAL mode, with a server writing to it) into `target`.
 *
 * The copy is made in ONE step of sqlite3_backup_step: one read transaction, so it is the database as of one
 * commit, and the server's writers are not blocked (WAL readers never block writers). In small steps SQLite would
 * restart the copy whenever another connection wrote in between, which on a busy server may never end. The copy is
 * then switched to a rollback journal, so that it is one self-contained file (no -wal beside it) whose hash means
 * something, and checked with `PRAGMA quick_check`.
 */
export async function snapshotSqlite(source: string, target: string): Promise<void> {
  const live = new BetterSqlite3(source, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 10000');
    await live.backup(target, { progress: () => ALL_PAGES });
  } finally {
    live.close();
  }
  const copy = new BetterSqlite3(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') {
      throw new MoharError('internal_error', `the database copy does not check out: ${String(check)}`);
    }
  } finally {
    copy.close();
  }
}

export interface SqliteFile {
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

/** Kysely over a SQLite file that is not a running installation's (a backup's copy, a data dir being restored). */
export function openSqliteFile(path: string, options: { readonly: boolean }): SqliteFile {
  const file = new BetterSqlite3(path, { fileMustExist: true, readonly: options.readonly });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  return { db, close: () => db.destroy() };
}
