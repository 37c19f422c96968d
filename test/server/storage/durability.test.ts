/**
 * Issue 16 point 14: an acknowledged write must survive a power loss. SQLite commits with synchronous=FULL
 * (the WAL is synced at every commit, not only at checkpoints), and a blob's rename into place is made
 * durable by syncing the directories whose entries changed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { FileBlobStore, fsyncDirectory } from '../../../server/storage/blobs.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const FULL = 2;

describe('SQLite durability of the running app', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(async () => {
    await server.close();
  });

  test('the Kysely connection commits with synchronous=FULL', async () => {
    const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(server.ctx.db);
    assert.equal(rows[0]?.synchronous, FULL);
  });

  test('the fast path (the same file handle) commits with synchronous=FULL', () => {
    assert.ok(server.ctx.sqlite, 'the SQLite app has a fast path');
    const rows = server.ctx.sqlite.readArraysNow(sql`PRAGMA synchronous`.compile(server.ctx.db));
    assert.deepEqual(rows, [[FULL]]);
  });
});

describe('file blob store durability', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'mohar-blobs-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('put syncs the blob directory after the rename, and every directory it had to create', async () => {
    const synced: string[] = [];
    const store = new FileBlobStore(join(root, 'store'), async (directory) => {
      // The real sync runs too: it must work on a real directory.
      await fsyncDirectory(directory);
      synced.push(directory);
    });
    const sha = await store.put(randomBytes(1000));
    const leaf = join(root, 'store', sha.slice(0, 2), sha.slice(2, 4));
    // The leaf holds the renamed blob; each created directory's entry lives in its parent.
    assert.deepEqual(synced, [leaf, dirname(leaf), join(root, 'store'), root]);
    assert.ok((await stat(join(leaf, sha))).isFile());

    synced.length = 0;
    const second = Buffer.from(`another blob ${randomBytes(8).toString('hex')}`);
    const sha2 = await store.put(second);
    // Fresh leaf directories under an existing root: only the new entries' parents are synced.
    const leaf2 = join(root, 'store', sha2.slice(0, 2), sha2.slice(2, 4));
    assert.equal(synced[0], leaf2);
    assert.ok(synced.every((directory) => directory.startsWith(join(root, 'store')) || directory === root));
    assert.ok(!synced.includes(root), 'the root existed already: its parent is not synced again');
  });

  test('the default sync opens and fsyncs a real directory', async () => {
    await fsyncDirectory(root);
    const store = new FileBlobStore(join(root, 'default'));
    // Without a port the store uses fsyncDirectory itself (no silent no-op).
    assert.equal(store.syncDirectory, fsyncDirectory);
    const sha = await store.put(Buffer.from('x'));
    assert.ok(await store.has(sha));
    await assert.rejects(fsyncDirectory(join(root, 'missing')), { code: 'ENOENT' });
  });
});
