/**
 * The SQLite fast path (server/storage/sqlite-fast-path.ts): group commit with a savepoint per write,
 * acknowledgement only after the commit, failures that stay with their own write, and reads that never
 * see another transaction's uncommitted rows. SQLite only: PostgreSQL has no fast path.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import type { SqliteFastPath } from '../../../server/storage/sqlite-fast-path.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

const AT = '2024-05-01T09:00:00.000Z';

describe('SQLite fast path', () => {
  let database: TestDatabase;
  let storage: Storage;
  let fast: SqliteFastPath;
  /** A second connection to the same file: it sees only committed rows. */
  let observer: BetterSqlite3.Database;
  let accountId: string;

  before(async () => {
    database = await createTestDatabase('sqlite');
    storage = connectStorage({ databaseUrl: undefined, dataDir: database.dataDir });
    await migrateToLatest(storage.db);
    assert.ok(storage.sqlite, 'a SQLite storage has the fast path');
    fast = storage.sqlite;
    observer = new BetterSqlite3(join(database.dataDir, 'mohar.sqlite'), { readonly: true });
    accountId = randomUUID();
    await storage.db
      .insertInto('accounts')
      .values({
        id: accountId,
        name: 'Fast',
        test_mode: 0,
        suspended: 0,
        monthly_call_limit: null,
        settings: '{}',
        created_at: AT,
      })
      .execute();
  });
  after(async () => {
    observer?.close();
    await storage?.close();
    await database?.drop();
  });

  const envelope = (title = 'Fast path') => ({
    id: randomUUID(),
    account_id: accountId,
    title,
    status: 'draft' as const,
    external_id: null,
    routing_order: 'sequential',
    message: null,
    expire_in_days: null,
    redirect_url: null,
    metadata: null,
    created_at: AT,
    updated_at: AT,
  });
  const committed = (id: string): boolean =>
    observer.prepare('select 1 from envelopes where id = ?').get(id) !== undefined;
  const visible = async (id: string): Promise<boolean> =>
    (await storage.db.selectFrom('envelopes').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  test('writes queued in one turn share one commit, and each is acknowledged only after that commit', async () => {
    const before = { ...fast.stats };
    const rows = Array.from({ length: 20 }, () => envelope());
    const seenAtAcknowledgement: boolean[] = [];
    const writes = rows.map((row) =>
      fast
        .write(() => {
          fast.insert('envelopes', row);
          return row.id;
        })
        .then((id) => {
          seenAtAcknowledgement.push(committed(id));
          return id;
        }),
    );
    assert.equal(committed(rows[0]!.id), false, 'nothing is written before the batch runs');
    assert.deepEqual(
      await Promise.all(writes),
      rows.map((r) => r.id),
      'each write resolves to its own result',
    );
    assert.deepEqual(
      seenAtAcknowledgement,
      rows.map(() => true),
      'every row was visible to another connection when its write was acknowledged',
    );
    assert.equal(fast.stats.commits - before.commits, 1);
    assert.equal(fast.stats.writes - before.writes, 20);
  });

  test('a write queued in the next turn of the event loop joins the same commit (a request read meanwhile)', async () => {
    const before = { ...fast.stats };
    const [first, second] = [envelope(), envelope()];
    const writeOf = (row: typeof first) =>
      fast.write(() => {
        fast.insert('envelopes', row);
        return row.id;
      });
    const early = writeOf(first);
    // Runs after this turn's check phase has begun, as a handler run by the next turn's poll phase does.
    const late = new Promise<string>((resolve, reject) => setImmediate(() => writeOf(second).then(resolve, reject)));
    assert.deepEqual(await Promise.all([early, late]), [first.id, second.id]);
    assert.equal(fast.stats.commits - before.commits, 1, 'both writes shared one commit');
    assert.equal(fast.stats.writes - before.writes, 2);
  });

  test('a failing write is rejected and leaves nothing behind; the others in its batch commit', async () => {
    const [a, b, c] = [envelope(), envelope(), envelope()];
    const before = { ...fast.stats };
    const results = await Promise.allSettled([
      fast.write(() => fast.insert('envelopes', a)),
      fast.write(() => {
        fast.insert('envelopes', b);
        fast.insert('envelopes', { ...envelope(), id: b.id }); // primary key taken: fails after the first insert
      }),
      fast.write(() => fast.insert('envelopes', c)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal(
      ((results[1] as PromiseRejectedResult).reason as { code?: string }).code,
      'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    assert.deepEqual(
      [committed(a.id), committed(b.id), committed(c.id)],
      [true, false, true],
      "the failed write's first insert is undone too",
    );
    assert.deepEqual(
      [fast.stats.commits - before.commits, fast.stats.restarts - before.restarts],
      [1, 1],
      'one commit, after one round run again',
    );
  });

  test('after a first failure the batch continues with a savepoint per write, so more failures cost no more rounds', async () => {
    const rows = [envelope(), envelope(), envelope(), envelope(), envelope()];
    const before = { ...fast.stats };
    const results = await Promise.allSettled(
      rows.map((row, i) =>
        fast.write(() => {
          fast.insert('envelopes', row);
          if (i % 2 === 1) fast.insert('envelopes', row); // writes 1 and 3 fail on their second insert
          return i;
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : null)),
      [0, null, 2, null, 4],
    );
    assert.deepEqual(
      rows.map((r) => committed(r.id)),
      [true, false, true, false, true],
    );
    assert.deepEqual(
      [fast.stats.commits - before.commits, fast.stats.restarts - before.restarts, fast.stats.writes - before.writes],
      [1, 1, 3],
    );
  });

  test('work that is not synchronous is refused (it could not run inside the shared transaction)', async () => {
    const [a, b] = [envelope(), envelope()];
    const results = await Promise.allSettled([
      fast.write(async () => fast.insert('envelopes', a)),
      fast.write(() => fast.insert('envelopes', b)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled'],
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), /must be synchronous/);
    assert.deepEqual([committed(a.id), committed(b.id)], [false, true]);
  });

  test('a write whose failure ends the whole transaction is rejected alone; the others are written again and committed', async () => {
    // RAISE(ROLLBACK) ends the transaction, as SQLite may do on a full disk or an I/O error.
    await sql`CREATE TRIGGER fast_path_test_rollback BEFORE INSERT ON envelopes WHEN NEW.title = 'roll everything back' BEGIN SELECT RAISE(ROLLBACK, 'the whole transaction is gone'); END`.execute(
      storage.db,
    );
    try {
      const [a, b, c] = [envelope(), envelope('roll everything back'), envelope()];
      const results = await Promise.allSettled([a, b, c].map((row) => fast.write(() => fast.insert('envelopes', row))));
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /the whole transaction is gone/);
      assert.deepEqual([committed(a.id), committed(b.id), committed(c.id)], [true, false, true]);
    } finally {
      await sql`DROP TRIGGER fast_path_test_rollback`.execute(storage.db);
    }
  });

  test('when the commit fails, no write of the batch is acknowledged and nothing is written', async () => {
    const [a, b] = [envelope(), envelope()];
    const results = await Promise.allSettled([
      fast.write(() => fast.insert('envelopes', a)),
      fast.write(() => {
        // A deferred foreign key is only checked by COMMIT, so this makes the commit itself fail.
        fast.run(sql`PRAGMA defer_foreign_keys = ON`.compile(storage.db));
        fast.insert('recipients', {
          id: randomUUID(),
          envelope_id: randomUUID(),
          name: 'Nobody',
          email: 'n@example.com',
          role: 'signer',
          signature_method: 'electronic',
          sequence: 1,
          status: 'created',
          position: 1,
          created_at: AT,
        });
        fast.insert('envelopes', b);
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    for (const r of results) {
      assert.equal(((r as PromiseRejectedResult).reason as { code?: string }).code, 'SQLITE_CONSTRAINT_FOREIGNKEY');
    }
    assert.deepEqual([committed(a.id), committed(b.id)], [false, false]);
    // The connection is usable afterwards.
    const c = envelope();
    await fast.write(() => fast.insert('envelopes', c));
    assert.equal(committed(c.id), true);
  });

  test('a write never joins a Kysely transaction that is open meanwhile', async () => {
    const inKysely = envelope();
    const fastRow = envelope();
    let fastWrite: Promise<void> | undefined;
    await assert.rejects(
      storage.db.transaction().execute(async (trx) => {
        await trx.insertInto('envelopes').values(inKysely).execute();
        fastWrite = fast.write(() => fast.insert('envelopes', fastRow));
        await new Promise((resolve) => setTimeout(resolve, 30));
        assert.equal(committed(fastRow.id), false, 'the fast write waits for the connection');
        throw new Error('roll the Kysely transaction back');
      }),
      /roll the Kysely transaction back/,
    );
    await fastWrite;
    assert.deepEqual([committed(inKysely.id), committed(fastRow.id)], [false, true]);
  });

  test('readArraysNow reads committed rows as arrays, and stands aside while a transaction is open on the connection', async () => {
    const row = envelope('read me');
    const query = storage.db.selectFrom('envelopes').select(['id', 'title']).where('id', '=', row.id).compile();
    await storage.db.transaction().execute(async (trx) => {
      await trx.insertInto('envelopes').values(row).execute();
      assert.equal(fast.readArraysNow(query), undefined, 'the uncommitted row must not be read');
    });
    assert.deepEqual(fast.readArraysNow(query), [[row.id, 'read me']]);
    assert.equal(await visible(row.id), true);
  });

  test('the connection keeps savepoint journals in memory and checkpoints every 4000 WAL pages', async () => {
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`PRAGMA ${name}`).execute(storage.db)).rows[0] as object)[0] as unknown;
    assert.equal(await pragma('temp_store'), 2, 'MEMORY');
    assert.equal(await pragma('wal_autocheckpoint'), 4000);
    assert.equal(await pragma('journal_mode'), 'wal');
  });

  test('insert runs the SQL Kysely compiles for the same row', async () => {
    const row = envelope();
    await fast.write(() => fast.insert('envelopes', row));
    const stored = await storage.db
      .selectFrom('envelopes')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(Object.fromEntries(Object.keys(row).map((k) => [k, stored[k as keyof typeof stored]])), row);
    assert.equal(stored.events_seq, 0, 'columns left out take their defaults');
    // Another column list for the same table (undefined members are left out, as Kysely does), then the first again.
    const partial = { ...envelope(), message: undefined, events_seq: 7 };
    const again = envelope('again');
    await fast.write(() => {
      fast.insert('envelopes', partial);
      fast.insert('envelopes', again);
    });
    const rows = await storage.db
      .selectFrom('envelopes')
      .select(['id', 'message', 'events_seq', 'title'])
      .where('id', 'in', [partial.id, again.id])
      .execute();
    assert.deepEqual(
      new Map(rows.map((r) => [r.id, r])),
      new Map([
        [partial.id, { id: partial.id, message: null, events_seq: 7, title: 'Fast path' }],
        [again.id, { id: again.id, message: null, events_seq: 0, title: 'again' }],
      ]),
    );
  });
});
