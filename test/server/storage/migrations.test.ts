import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { MIGRATIONS, migrateToLatest, migrator } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../../support/databases.js';

async function tableNames(storage: Storage): Promise<string[]> {
  const tables = await storage.db.introspection.getTables();
  return tables.map((t) => t.name).sort();
}

for (const kind of DATABASES) {
  describe(`migrations on ${kind}`, () => {
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

    test('migrations are numbered and applied in order', async () => {
      const names = Object.keys(MIGRATIONS);
      assert.deepEqual(names, [...names].sort());
      // Numbers increase strictly from 0001. Parallel branches reserve theirs (issue 29: 0022 to 0025), so one
      // branch may skip the others' until they are merged; Kysely orders by name, which the sort above checks.
      const numbers = names.map((name) => Number(/^(\d{4})_/.exec(name)?.[1]));
      assert.equal(numbers[0], 1);
      numbers.forEach((n, i) =>
        assert.ok(i === 0 || n > numbers[i - 1]!, `${names[i]} is numbered after ${names[i - 1]}`),
      );
      const report = await migrateToLatest(storage.db);
      assert.deepEqual(report.applied, names);
    });

    test('running again applies nothing', async () => {
      assert.deepEqual((await migrateToLatest(storage.db)).applied, []);
    });

    test('0001_initial creates the account, key and envelope tables with their constraints', async () => {
      const tables = await tableNames(storage);
      for (const table of [
        'accounts',
        'users',
        'api_keys',
        'auth_tokens',
        'login_failures',
        'documents',
        'envelopes',
        'recipients',
        'envelope_documents',
        'fields',
        'idempotency_keys',
      ]) {
        assert.ok(tables.includes(table), `${table} exists`);
      }
      const at = new Date().toISOString();
      await storage.db
        .insertInto('accounts')
        .values({
          id: 'a1',
          name: 'A',
          test_mode: 0,
          suspended: 0,
          monthly_call_limit: null,
          settings: '{}',
          created_at: at,
        })
        .execute();
      const envelope = {
        account_id: 'a1',
        title: 't',
        status: 'draft' as const,
        routing_order: 'sequential',
        message: null,
        expire_in_days: null,
        redirect_url: null,
        metadata: null,
        created_at: at,
        updated_at: at,
      };
      await storage.db
        .insertInto('envelopes')
        .values({ ...envelope, id: 'e1', external_id: 'x' })
        .execute();
      await storage.db
        .insertInto('envelopes')
        .values({ ...envelope, id: 'e2', external_id: null })
        .execute();
      await storage.db
        .insertInto('envelopes')
        .values({ ...envelope, id: 'e3', external_id: null })
        .execute();
      await assert.rejects(
        storage.db
          .insertInto('envelopes')
          .values({ ...envelope, id: 'e4', external_id: 'x' })
          .execute(),
        'external_id is unique per account',
      );
    });

    test('0002_blobs stores bytes exactly', async () => {
      const bytes = new Uint8Array([0, 1, 2, 255, 0x25, 0x50]);
      await storage.db
        .insertInto('blobs')
        .values({ sha256: 'f'.repeat(64), size: bytes.length, data: bytes, created_at: new Date().toISOString() })
        .execute();
      const row = await storage.db.selectFrom('blobs').select('data').executeTakeFirstOrThrow();
      assert.deepEqual(Buffer.from(row.data), Buffer.from(bytes));
    });

    test('0011_templates: versions and the template trail are append-only; envelopes name their version', async () => {
      const at = new Date().toISOString();
      await storage.db
        .insertInto('templates')
        .values({
          id: 't1',
          account_id: 'a1',
          name: 'T',
          latest_version: 1,
          archived_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const version = {
        template_id: 't1',
        version: 1,
        account_id: 'a1',
        definition: '{}',
        summary: '{}',
        actor_type: 'system' as const,
        actor_id: null,
        created_at: at,
      };
      await storage.db.insertInto('template_versions').values(version).execute();
      await assert.rejects(storage.db.insertInto('template_versions').values(version).execute(), 'one row per version');
      await assert.rejects(
        storage.db
          .updateTable('template_versions')
          .set({ definition: '{"x":1}' })
          .where('template_id', '=', 't1')
          .execute(),
        /append-only/,
      );
      await assert.rejects(
        storage.db.deleteFrom('template_versions').where('template_id', '=', 't1').execute(),
        /append-only/,
      );
      await storage.db
        .insertInto('template_audit')
        .values({
          template_id: 't1',
          seq: 1,
          account_id: 'a1',
          at,
          actor_type: 'system',
          actor_id: null,
          action: 'template.created',
          details: '{}',
          prev_hash: '0',
          hash: '1',
        })
        .execute();
      await assert.rejects(
        storage.db.updateTable('template_audit').set({ details: '{"x":1}' }).execute(),
        /append-only/,
      );
      await storage.db
        .updateTable('templates')
        .set({ latest_version: 2, archived_at: at })
        .where('id', '=', 't1')
        .execute();
      await storage.db
        .updateTable('envelopes')
        .set({ template_id: 't1', template_version: 1 })
        .where('id', '=', 'e1')
        .execute();
      const pinned = await storage.db
        .selectFrom('envelopes')
        .select(['template_id', 'template_version'])
        .where('id', '=', 'e1')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...pinned, template_version: Number(pinned.template_version) },
        { template_id: 't1', template_version: 1 },
      );
    });

    test('every migration can be rolled back and re-applied', async () => {
      const m = migrator(storage.db);
      for (let i = 0; i < Object.keys(MIGRATIONS).length; i++) {
        const { error } = await m.migrateDown();
        assert.equal(error, undefined);
      }
      const left = (await tableNames(storage)).filter((t) => !t.startsWith('kysely_'));
      assert.deepEqual(left, []);
      await migrateToLatest(storage.db);
      const count = await sql<{ n: number }>`select count(*) as n from accounts`.execute(storage.db);
      assert.equal(Number(count.rows[0]!.n), 0);
    });
  });
}
