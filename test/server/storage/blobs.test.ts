import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { DatabaseBlobStore, FileBlobStore, sha256Hex, type BlobStore } from '../../../server/storage/blobs.js';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../../support/databases.js';

for (const kind of DATABASES) {
  describe(`blob store on ${kind}`, () => {
    let database: TestDatabase;
    let storage: Storage;
    let blobs: BlobStore;
    before(async () => {
      database = await createTestDatabase(kind);
      storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      await migrateToLatest(storage.db);
      blobs =
        kind === 'postgres' ? new DatabaseBlobStore(storage.db) : new FileBlobStore(join(database.dataDir, 'blobs'));
    });
    after(async () => {
      await storage.close();
      await database.drop();
    });

    test('returns exactly the bytes stored, under their SHA-256', async () => {
      const bytes = randomBytes(300_000);
      const sha = await blobs.put(bytes);
      assert.equal(sha, sha256Hex(bytes));
      assert.ok(await blobs.has(sha));
      assert.deepEqual(await blobs.get(sha), bytes);
    });

    test('storing the same bytes twice is harmless', async () => {
      const bytes = Buffer.from('%PDF-1.7 same bytes');
      assert.equal(await blobs.put(bytes), await blobs.put(bytes));
    });

    test('a missing blob is blob_missing, and names that are not hashes are refused', async () => {
      await assert.rejects(blobs.get('0'.repeat(64)), (e: unknown) => isMoharError(e, 'blob_missing'));
      await assert.rejects(blobs.get('../../etc/passwd'), (e: unknown) => isMoharError(e, 'blob_missing'));
    });
  });
}
