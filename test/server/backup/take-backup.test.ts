/**
 * takeBackup in-process on a SQLite test server: a blob the snapshot names that the collector removes before it is
 * copied makes the backup take a new snapshot (and succeed); a blob that stays missing fails it with blob_missing.
 * The keys open only with the passphrase, and only with the manifest they were written with.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError, MoharError } from '../../../common/errors.js';
import { MANIFEST_FILE, manifestDigest, readManifest } from '../../../server/backup/manifest.js';
import { openWithPassphrase } from '../../../server/backup/passphrase-box.js';
import { takeBackup } from '../../../server/backup/take-backup.js';
import { openSecretBox } from '../../../server/seal/secret-box.js';
import type { BlobStore } from '../../../server/storage/blobs.js';
import { makeDraft } from '../../support/envelopes.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const PASSPHRASE = 'a long enough passphrase';

/** The server's blob store, with `get` answering blob_missing while `vanished` says so. */
function storeWhere(server: TestServer, vanished: (sha256: string, call: number) => boolean): BlobStore {
  const calls = new Map<string, number>();
  return {
    ...server.ctx.blobs,
    get: async (sha256) => {
      const call = (calls.get(sha256) ?? 0) + 1;
      calls.set(sha256, call);
      if (vanished(sha256, call)) throw new MoharError('blob_missing', `stored bytes ${sha256} are missing`);
      return server.ctx.blobs.get(sha256);
    },
  };
}

describe('takeBackup', () => {
  let server: TestServer;
  let documentSha: string;
  const scratch: string[] = [];
  before(async () => {
    server = await startTestServer('sqlite');
    const account = await server.newAccount();
    const draft = await makeDraft(server, account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
    const row = await server.ctx.db
      .selectFrom('documents')
      .select('sha256')
      .where('id', '=', draft.documentId)
      .executeTakeFirstOrThrow();
    documentSha = row.sha256;
  });
  after(async () => {
    await server.close();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });
  const target = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mohar-take-backup-'));
    scratch.push(dir);
    return join(dir, 'backup');
  };
  const backup = async (blobs: BlobStore, lines: string[] = []) =>
    takeBackup({
      config: server.ctx.config,
      blobs,
      target: await target(),
      passphrase: PASSPHRASE,
      log: (l) => lines.push(l),
    });

  test('a blob collected after the snapshot: a new snapshot, and the backup succeeds', async () => {
    const lines: string[] = [];
    const manifest = await backup(
      storeWhere(server, (sha256, call) => sha256 === documentSha && call === 1),
      lines,
    );
    assert.ok(manifest.blobs.some((b) => b.sha256 === documentSha));
    assert.match(lines.join('\n'), /collected after the snapshot; taking a new snapshot/);
  });

  test('a blob that stays missing fails the backup with blob_missing', async () => {
    await assert.rejects(
      backup(storeWhere(server, (sha256) => sha256 === documentSha)),
      (error) => isMoharError(error, 'blob_missing') && error.message.includes(documentSha),
    );
  });

  test('the keys open with the passphrase and the manifest they were sealed with, and nothing else', async () => {
    await openSecretBox(server.ctx.config); // makes secret.key, as the first seal does
    const manifest = await backup(server.ctx.blobs);
    assert.equal(manifest.keys.secretKey, 'file');
    assert.deepEqual(manifest.keys.files, ['secret.key']);
    const keys = JSON.parse(
      (await openWithPassphrase(manifest.keys.box, PASSPHRASE, manifestDigest(manifest))).toString(),
    ) as Record<string, string>;
    const secretKey = await readFile(join(server.ctx.config.dataDir, 'secret.key'));
    assert.ok(Buffer.from(keys['secret.key']!, 'base64').equals(secretKey));
    await assert.rejects(openWithPassphrase(manifest.keys.box, 'another passphrase', manifestDigest(manifest)), (e) =>
      isMoharError(e, 'backup_passphrase_incorrect'),
    );
    const edited = { ...manifest, createdAt: '2000-01-01T00:00:00.000Z' };
    await assert.rejects(openWithPassphrase(manifest.keys.box, PASSPHRASE, manifestDigest(edited)), (e) =>
      isMoharError(e, 'backup_passphrase_incorrect'),
    );
  });

  test('a manifest that is not one is backup_invalid', async () => {
    const dir = await target();
    await takeBackup({ config: server.ctx.config, blobs: server.ctx.blobs, target: dir, passphrase: PASSPHRASE });
    await writeFile(join(dir, MANIFEST_FILE), '{"format":"something else"}');
    await assert.rejects(readManifest(dir), (e) => isMoharError(e, 'backup_invalid'));
  });
});
