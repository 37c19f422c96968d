import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readRevision, storeRevision } from '../../../server/domain/documents/recent-revisions.js';
import { sha256Hex, type BlobStore } from '../../../server/storage/blobs.js';

/** A blob store in memory that counts its reads. */
function countingStore(): { blobs: BlobStore; reads: () => number } {
  const stored = new Map<string, Buffer>();
  let reads = 0;
  const blobs = {
    async put(bytes: Uint8Array) {
      const sha = sha256Hex(bytes);
      stored.set(sha, Buffer.from(bytes));
      return sha;
    },
    async get(sha: string) {
      reads++;
      const bytes = stored.get(sha);
      if (!bytes) throw new Error(`missing ${sha}`);
      return Buffer.from(bytes);
    },
  } as unknown as BlobStore;
  return { blobs, reads: () => reads };
}

describe('recent revisions', () => {
  test('a revision just stored is read back from memory, as its own copy', async () => {
    const { blobs, reads } = countingStore();
    const bytes = Buffer.from(`%PDF-1.7 revision ${Math.random()}`);
    const sha = await storeRevision({ blobs }, bytes);
    bytes.fill(0); // the caller reuses its buffer: what was stored stays
    const first = await readRevision({ blobs }, sha);
    assert.equal(sha256Hex(first), sha);
    first.fill(0x41); // a reader writes into its copy: the next reader does not see it
    assert.equal(sha256Hex(await readRevision({ blobs }, sha)), sha);
    assert.equal(reads(), 0);
  });

  test('bytes not held are read from the store once, then from memory; large ones are never held', async () => {
    const { blobs, reads } = countingStore();
    const other = countingStore();
    const sha = await other.blobs.put(Buffer.from(`stored elsewhere ${Math.random()}`));
    await blobs.put(Buffer.from(await other.blobs.get(sha)));
    await readRevision({ blobs }, sha);
    await readRevision({ blobs }, sha);
    assert.equal(reads(), 1);

    const large = Buffer.alloc(5 * 1024 * 1024, Math.floor(Math.random() * 256));
    const largeSha = await storeRevision({ blobs }, large);
    await readRevision({ blobs }, largeSha);
    assert.equal(reads(), 2);
  });

  test('at most 32 MB is held, the oldest goes first', async () => {
    const { blobs, reads } = countingStore();
    const seed = Math.random();
    const shas: string[] = [];
    for (let i = 0; i < 12; i++) {
      shas.push(await storeRevision({ blobs }, Buffer.alloc(3 * 1024 * 1024, `${seed}-${i}`)));
    }
    await readRevision({ blobs }, shas[11]!); // newest: held
    assert.equal(reads(), 0);
    await readRevision({ blobs }, shas[0]!); // oldest of 36 MB: dropped
    assert.equal(reads(), 1);
  });
});
