/** Keyset paging newest first (storage/keyset.ts), shared by the jobs, outbox and webhook listings. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kysely, SqliteDialect } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { newestFirstPage, olderThan, pageLimit, unknownCursor } from '../../../server/storage/keyset.js';
import type { Database } from '../../../server/storage/schema.js';

describe('keyset paging', () => {
  test('pageLimit makes the asked-for size a whole number from 1 to the maximum', () => {
    assert.deepEqual([pageLimit(0, 200), pageLimit(-3, 200), pageLimit(7.9, 200), pageLimit(900, 200)], [1, 1, 7, 200]);
  });

  test('newestFirstPage keeps limit rows and names the last as the next cursor only when one more came', () => {
    const rows = [{ id: 'c' }, { id: 'b' }, { id: 'a' }];
    assert.deepEqual(
      newestFirstPage(rows, 2, (r) => ({ id: r.id.toUpperCase() })),
      {
        items: [{ id: 'C' }, { id: 'B' }],
        next_before: 'B',
      },
    );
    assert.deepEqual(
      newestFirstPage(rows, 3, (r) => r),
      { items: rows, next_before: null },
    );
  });

  test('unknownCursor is a validation error on the before parameter', () => {
    const error = unknownCursor('x-1', 'job');
    assert.equal(error.code, 'validation_failed');
    assert.match(error.message, /^before: no job x-1 /);
    assert.deepEqual(error.errors, [{ path: 'querystring/before', message: 'names no job' }]);
  });

  test('olderThan selects the rows after the cursor in (time, id) descending order, ties broken by id', async () => {
    const file = new BetterSqlite3(':memory:');
    file.exec('create table jobs (id text, created_at text)');
    const rows = [
      ['a', '2026-01-01'],
      ['b', '2026-01-02'],
      ['c', '2026-01-02'],
      ['d', '2026-01-03'],
    ];
    for (const [id, at] of rows) file.prepare('insert into jobs values (?, ?)').run(id, at);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
    const after = await db
      .selectFrom('jobs')
      .select('id')
      .where((eb) => olderThan(eb, 'created_at', 'id', { time: '2026-01-02', id: 'c' }))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    assert.deepEqual(
      after.map((r) => r.id),
      ['b', 'a'],
    );
    await db.destroy();
  });
});
