/**
 * Issue 29, point 3, for PostgreSQL installations: `mohar backup verify --live` against a live installation (0 on a
 * sound one, 1 with every problem named on a damaged one), and the pg_dump procedure of docs/operations.md ("Backup
 * and restore") followed step by step: pg_dump, pg_restore into a new database, secret.key into a new data dir,
 * `mohar backup hold-webhooks`, `mohar backup verify --live`, `mohar serve`; the completed envelope downloads
 * byte-identical and the envelope in flight finishes.
 */
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { serveProcess } from '../support/process-server.js';
import { PROCESS_ADMIN, processApiKey } from '../server/bulk/helpers.js';
import { certificate, runCli, sentEnvelope, signedPdf, signEnvelope } from './backup-support.js';

async function query(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe('PostgreSQL: mohar backup verify --live and the pg_dump procedure', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const scratch: string[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const database of databases) await database.drop();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });
  const serve = async (database: TestDatabase) => {
    const server = await serveProcess(database, PROCESS_ADMIN);
    children.push(server.child);
    return server;
  };
  const stop = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };

  test('dump, restore by the documented steps, verify, serve', async () => {
    const original = await createTestDatabase('postgres');
    databases.push(original);
    const first = await serve(original);
    const key = await processApiKey(first.url);
    const done = await sentEnvelope(first.url, key, 'pg-done');
    await signEnvelope(first.url, key, done.id, done.recipient);
    const pending = await sentEnvelope(first.url, key, 'pg-pending');
    const pdf = await signedPdf(first.url, key, done.id, done.documentId);
    const issued = await certificate(first.url, key, done.id);

    const refused = await runCli(original, ['backup', join(tmpdir(), 'never-written')], 'a passphrase\n');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /uses PostgreSQL: back it up with pg_dump/);

    const live = await runCli(original, ['backup', 'verify', '--live']);
    assert.equal(live.status, 0, live.stdout + live.stderr);
    assert.match(live.stdout, /installation: [1-9]\d* blobs re-hashed, 2 audit chains checked, 0 problems/);

    // docs/operations.md, PostgreSQL: the dump (one consistent snapshot, the blobs table included) and secret.key.
    const dir = await mkdtemp(join(tmpdir(), 'mohar-pg-backup-'));
    scratch.push(dir);
    const dump = join(dir, 'mohar.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, original.databaseUrl!]);
    await stop(first.child);

    const restored = await createTestDatabase('postgres');
    databases.push(restored);
    execFileSync('pg_restore', ['--no-owner', '--no-privileges', `--dbname=${restored.databaseUrl!}`, dump]);
    await copyFile(join(original.dataDir, 'secret.key'), join(restored.dataDir, 'secret.key'));
    const hold = await runCli(restored, ['backup', 'hold-webhooks']);
    assert.equal(hold.status, 0, hold.stdout + hold.stderr);
    const check = await runCli(restored, ['backup', 'verify', '--live']);
    assert.equal(check.status, 0, check.stdout + check.stderr);

    const second = await serve(restored);
    assert.ok((await signedPdf(second.url, key, done.id, done.documentId)).equals(pdf), 'the signed PDF is identical');
    assert.ok((await certificate(second.url, key, done.id)).equals(issued), 'the certificate is identical');
    await signEnvelope(second.url, key, pending.id, pending.recipient);
    await certificate(second.url, key, pending.id);
    await stop(second.child);
  });

  test('verify --live names every damaged blob and broken chain, and exits 1', async () => {
    const damaged = databases[0]!;
    const url = damaged.databaseUrl!;
    const blob = (await query(url, 'select sha256 from blobs order by sha256 limit 1')).rows[0].sha256 as string;
    await query(url, 'update blobs set data = $1 where sha256 = $2', [Buffer.from('%PDF-1.7 changed'), blob]);
    const envelope = (await query(url, `select envelope_id from audit_events order by envelope_id limit 1`)).rows[0]
      .envelope_id as string;
    // audit_events is append-only by trigger: an attacker with the database's owner rights turns it off first.
    await query(
      url,
      `alter table audit_events disable trigger user;
       update audit_events set details = '{"edited":true}' where envelope_id = '${envelope}' and seq = 1;
       alter table audit_events enable trigger user`,
    );

    const result = await runCli(damaged, ['backup', 'verify', '--live']);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`PROBLEM  blob ${blob} has changed`));
    assert.match(result.stdout, new RegExp(`PROBLEM  audit chain of envelope ${envelope} broken at seq 1`));
    assert.match(result.stdout, /2 problems$/m);
  });
});
