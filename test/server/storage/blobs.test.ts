/**
 * The blob store contract, run on every store: files (SQLite installations), the `blobs` table (PostgreSQL) and an
 * S3-compatible bucket (s3rver, started here).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { DatabaseBlobStore, FileBlobStore, sha256Hex, type BlobStore } from '../../../server/storage/blobs.js';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import { S3BlobStore, s3ClientFor } from '../../../server/storage/s3-blobs.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { startTestS3, type TestS3 } from '../../support/s3.js';

const FUTURE = () => new Date(Date.now() + 24 * 60 * 60 * 1000);

async function stored(blobs: BlobStore, cutoff: Date): Promise<Set<string>> {
  const names = new Set<string>();
  for await (const name of blobs.storedBefore(cutoff)) names.add(name);
  return names;
}

interface OpenStore {
  readonly blobs: BlobStore;
  /** False for S3: its listing names blobs stored again too (deleteIfStoredBefore is the exact check). */
  readonly exactListing?: boolean;
  close(): Promise<void>;
}

function blobContract(name: string, open: () => Promise<OpenStore>): void {
  describe(`blob store contract: ${name}`, () => {
    let blobs: BlobStore;
    let store: OpenStore;
    before(async () => ({ blobs } = store = await open()));
    after(() => store.close());

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
      assert.deepEqual(await blobs.get(sha256Hex(bytes)), bytes);
    });

    test('several instances storing the same new bytes at once: one blob, whole', async () => {
      const bytes = randomBytes(200_000);
      const names = await Promise.all(Array.from({ length: 6 }, () => blobs.put(bytes)));
      assert.deepEqual(new Set(names), new Set([sha256Hex(bytes)]));
      assert.deepEqual(await blobs.get(names[0]!), bytes);
    });

    test('a missing blob is blob_missing, and names that are not hashes are refused', async () => {
      await assert.rejects(blobs.get('0'.repeat(64)), (e: unknown) => isMoharError(e, 'blob_missing'));
      await assert.rejects(blobs.get('../../etc/passwd'), (e: unknown) => isMoharError(e, 'blob_missing'));
      assert.equal(await blobs.has('1'.repeat(64)), false);
    });

    test('storing bytes again makes them fresh for the collector; old ones are deleted once', async () => {
      const bytes = randomBytes(1000);
      const sha = await blobs.put(bytes);
      const other = await blobs.put(randomBytes(1000));
      // Stores keep their times to the second at worst (S3's LastModified): stay a second clear of the cutoff.
      await sleep(1100);
      const cutoff = new Date();
      await sleep(1100);
      assert.ok((await stored(blobs, cutoff)).has(sha));
      await blobs.put(bytes);
      if (store.exactListing !== false) {
        assert.equal((await stored(blobs, cutoff)).has(sha), false, 'stored again: no longer older than the cutoff');
      }
      assert.equal(await blobs.deleteIfStoredBefore(sha, cutoff), false);
      assert.ok(await blobs.has(sha));
      assert.equal(await blobs.deleteIfStoredBefore(other, cutoff), true);
      assert.equal(await blobs.deleteIfStoredBefore(other, cutoff), false, 'already gone');
      assert.equal(await blobs.has(other), false);
      await assert.rejects(blobs.get(other), (e: unknown) => isMoharError(e, 'blob_missing'));
      assert.equal((await stored(blobs, FUTURE())).has(other), false);
    });

    test('probe answers', async () => {
      await blobs.probe();
    });
  });
}

async function onDatabase(kind: 'sqlite' | 'postgres'): Promise<{ database: TestDatabase; storage: Storage }> {
  const database = await createTestDatabase(kind);
  const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  await migrateToLatest(storage.db);
  return { database, storage };
}

blobContract('files', async () => {
  const { database, storage } = await onDatabase('sqlite');
  return {
    blobs: new FileBlobStore(join(database.dataDir, 'blobs')),
    close: async () => (await storage.close(), await database.drop()),
  };
});

blobContract('database table on SQLite (MOHAR_BLOB_STORE=database)', async () => {
  const { database, storage } = await onDatabase('sqlite');
  return {
    blobs: new DatabaseBlobStore(storage.db),
    close: async () => (await storage.close(), await database.drop()),
  };
});

blobContract('database table on PostgreSQL', async () => {
  const { database, storage } = await onDatabase('postgres');
  return {
    blobs: new DatabaseBlobStore(storage.db),
    close: async () => (await storage.close(), await database.drop()),
  };
});

let s3: TestS3;
blobContract('S3 bucket (s3rver)', async () => {
  s3 = await startTestS3();
  const blobs = new S3BlobStore(s3ClientFor(s3.settings), s3.settings.bucket);
  return { blobs, exactListing: false, close: () => s3.close() };
});

describe('S3 blob store against a damaged or missing bucket', () => {
  let server: TestS3;
  before(async () => (server = await startTestS3('mohar-damage')));
  after(() => server.close());

  test('bytes changed in the bucket are refused as blob_missing', async () => {
    const blobs = new S3BlobStore(s3ClientFor(server.settings), server.settings.bucket);
    const sha = await blobs.put(Buffer.from('%PDF-1.7 original'));
    const file = await findObjectFile(server.directory, sha);
    await writeFile(file, '%PDF-1.7 tampered');
    await assert.rejects(blobs.get(sha), (e: unknown) => isMoharError(e, 'blob_missing') && /SHA-256/.test(String(e)));
  });

  test('probe throws when the bucket does not exist', async () => {
    const blobs = new S3BlobStore(s3ClientFor(server.settings), 'no-such-bucket');
    await assert.rejects(blobs.probe());
  });
});

/** s3rver keeps an object's bytes in a file named `<key>._S3rver_object` under the bucket's directory. */
async function findObjectFile(directory: string, sha256: string): Promise<string> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const found = entries.find((entry) => entry.isFile() && entry.name === `${sha256}._S3rver_object`);
  if (!found) throw new Error(`no s3rver file for ${sha256} in ${entries.map((e) => e.name).join(', ')}`);
  return join(found.parentPath, found.name);
}
