/**
 * `mohar blobs migrate`: a server's PDFs go from files to an S3 bucket (s3rver, started here) and back, every blob
 * verified; an interrupted run is finished by running it again, and a damaged copy in the target is copied anew.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { blobsMigrateCommand, type BlobsMigrateOptions } from '../../cli/blobs.js';
import type { Config } from '../../server/config.js';
import { FileBlobStore, sha256Hex } from '../../server/storage/blobs.js';
import { S3BlobStore, s3ClientFor } from '../../server/storage/s3-blobs.js';
import { blobIntegrity } from '../support/blob-integrity.js';
import { mohar } from '../support/cli.js';
import { makeDraft } from '../support/envelopes.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import { API, useTestServer } from '../support/server.js';
import { makePdf } from '../support/pdf-fixtures.js';

const root = new URL('../../', import.meta.url).pathname;
const execFileAsync = promisify(execFile);

/** Runs the command in this process, collecting its output lines. */
async function migrate(config: Config, options: BlobsMigrateOptions, lines: string[] = []) {
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return blobsMigrateCommand(config, options, out);
}

async function s3Names(s3: TestS3): Promise<Set<string>> {
  const names = new Set<string>();
  const client = s3ClientFor(s3.settings);
  const store = new S3BlobStore(client, s3.settings.bucket);
  for await (const name of store.storedBefore(new Date(Date.now() + 86_400_000))) names.add(name);
  client.destroy();
  return names;
}

describe('mohar blobs migrate', () => {
  let s3: TestS3;
  before(async () => (s3 = await startTestS3()));
  after(() => s3.close());
  const t = useTestServer('sqlite');
  let config: Config;
  let pdfs: Buffer[];
  let stored: string[];

  before(async () => {
    config = { ...t.server.ctx.config, s3: s3.settings };
    pdfs = [];
    for (let i = 0; i < 4; i++) {
      const pdf = makePdf({ pages: 1 + i });
      await makeDraft(t.server, t.account.key, { recipients: [{ name: `R${i}`, email: `r${i}@example.com` }], pdf });
      pdfs.push(pdf);
    }
    // A blob no row names yet (a request in flight): the source holds it, so it is copied too.
    await t.server.ctx.blobs.put(Buffer.from('%PDF-1.7 not named by a row yet'));
    stored = [];
    for await (const name of t.server.ctx.blobs.storedBefore(new Date(Date.now() + 86_400_000))) stored.push(name);
    assert.ok(stored.length >= 5);
  });

  test('an interrupted run copies part; running it again copies the rest and verifies what is there', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const interrupted = migrate(config, { to: 's3', signal: controller.signal }, lines);
    const watch = setInterval(() => {
      if (lines.filter((line) => / copied /.test(line)).length >= 2) controller.abort();
    }, 1);
    await assert.rejects(interrupted, { name: 'AbortError' });
    clearInterval(watch);
    const partial = await s3Names(s3);
    assert.ok(partial.size >= 2 && partial.size < stored.length, `copied ${partial.size} of ${stored.length}`);

    const resumed = await migrate(config, { to: 's3' });
    assert.equal(resumed.copied, stored.length - partial.size);
    assert.equal(resumed.present, partial.size);
    assert.deepEqual(resumed.missing, []);
    assert.deepEqual([...(await s3Names(s3))].sort(), [...stored].sort());

    const again = await migrate(config, { to: 's3' });
    assert.equal(again.copied, 0, 'nothing left to copy');
  });

  test('a damaged copy in the target is copied again', async () => {
    const victim = sha256Hex(pdfs[0]!);
    const entries = await readdir(s3.directory, { recursive: true, withFileTypes: true });
    const file = entries.find((entry) => entry.name === `${victim}._S3rver_object`)!;
    await writeFile(join(file.parentPath, file.name), 'damaged');
    const lines: string[] = [];
    const run = await migrate(config, { to: 's3' }, lines);
    assert.equal(run.copied, 1);
    assert.ok(lines.some((line) => line.includes(`copied  ${victim}`)));
  });

  test('back from the bucket into an empty data dir: every blob byte for byte, the server reads them', async () => {
    await rm(join(config.dataDir, 'blobs'), { recursive: true, force: true });
    const lines: string[] = [];
    const back = await migrate({ ...config, blobStore: 's3' }, { to: 'file' }, lines);
    assert.equal(back.copied, stored.length);
    assert.deepEqual(back.missing, []);
    assert.match(lines.at(-1)!, /set MOHAR_BLOB_STORE=file/);
    const files = new FileBlobStore(join(config.dataDir, 'blobs'));
    for (const name of stored) assert.equal(sha256Hex(await files.get(name)), name);
    const integrity = await blobIntegrity(t.server);
    assert.deepEqual(integrity.missing, []);
    assert.deepEqual(integrity.corrupt, []);
    const list = await t.server.request('GET', `${API}/envelopes`, { key: t.account.key });
    assert.equal(list.statusCode, 200, list.body);
  });

  test('the mohar command: --to is checked, progress and a summary are printed, exit 0', async () => {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MOHAR_DATA_DIR: config.dataDir,
      ...s3.env,
      MOHAR_BLOB_STORE: 'file',
    };
    // Not spawnSync: s3rver runs in this process and has to answer while the command runs.
    const run = (...args: string[]) =>
      execFileAsync(process.execPath, mohar('blobs', 'migrate', ...args), { cwd: root, env, timeout: 120_000 });
    await assert.rejects(run('--to', 'tape'), (error: { code?: number; stderr?: string }) => {
      assert.notEqual(error.code, 0);
      assert.match(error.stderr ?? '', /must be one of file, database, s3/);
      return true;
    });
    const { stdout } = await run('--to', 's3');
    assert.match(stdout, /copying blobs from file to s3/);
    assert.match(stdout, new RegExp(`${stored.length} names checked: 0 copied, ${stored.length} already in s3`));
  });
});
