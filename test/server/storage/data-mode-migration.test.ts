/**
 * Migration 0016_data_mode backfills from what the data says (issue 16, points 4 and 5), on SQLite and
 * PostgreSQL: everything live and mailed, except legacy documents made with a test key and sandbox requests
 * (test), headless legacy documents and the sandbox (no mail); a test envelope's documents and mail are test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest, migrator } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../../support/databases.js';

const AT = '2026-01-01T00:00:00.000Z';

for (const kind of DATABASES) {
  describe(`migration 0016_data_mode on ${kind}`, () => {
    let database: TestDatabase;
    let storage: Storage;
    before(async () => {
      database = await createTestDatabase(kind);
      storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    });
    after(async () => {
      await storage.close();
      await database.drop();
    });

    test('backfills mode and send_mail from legacy documents and sandbox requests', async () => {
      const { error } = await migrator(storage.db).migrateTo('0015_created_by');
      assert.equal(error, undefined);
      const db = storage.db;
      await sql`insert into accounts (id, name, created_at) values ('a1', 'A', ${AT})`.execute(db);
      for (const id of ['live', 'legacy-test', 'legacy-headless', 'sandbox']) {
        await sql`insert into envelopes (id, account_id, title, status, routing_order, created_at, updated_at) values (${id}, 'a1', 'T', 'sent', 'sequential', ${AT}, ${AT})`.execute(
          db,
        );
      }
      await sql`insert into legacy_documents (account_id, envelope_id, send_mail, test, created_at) values ('a1', 'legacy-test', 0, 1, ${AT})`.execute(
        db,
      );
      await sql`insert into legacy_documents (account_id, envelope_id, send_mail, test, created_at) values ('a1', 'legacy-headless', 0, 0, ${AT})`.execute(
        db,
      );
      await sql`insert into sandbox_requests (public_id, account_id, envelope_id, document_id, recipient_id, created_at, expires_at) values ('p1', 'a1', 'sandbox', 'd1', 'r1', ${AT}, ${AT})`.execute(
        db,
      );
      await sql`insert into outbox_mail (id, account_id, to_address, subject, text, kind, envelope_id, status, created_at, updated_at) values ('m1', 'a1', 'x@example.com', 'S', 'T', 'invitation', 'legacy-test', 'kept', ${AT}, ${AT})`.execute(
        db,
      );
      await sql`insert into outbox_mail (id, account_id, to_address, subject, text, kind, envelope_id, status, created_at, updated_at) values ('m2', 'a1', 'x@example.com', 'S', 'T', 'invitation', 'live', 'sent', ${AT}, ${AT})`.execute(
        db,
      );

      await migrateToLatest(db);
      const envelopes = await db.selectFrom('envelopes').select(['id', 'mode', 'send_mail']).orderBy('id').execute();
      assert.deepEqual(
        envelopes.map((e) => [e.id, e.mode, Number(e.send_mail)]),
        [
          ['legacy-headless', 'live', 0],
          ['legacy-test', 'test', 0],
          ['live', 'live', 1],
          ['sandbox', 'test', 0],
        ],
      );
      const mails = await db.selectFrom('outbox_mail').select(['id', 'test']).orderBy('id').execute();
      assert.deepEqual(
        mails.map((m) => [m.id, Number(m.test)]),
        [
          ['m1', 1],
          ['m2', 0],
        ],
      );
    });
  });
}
