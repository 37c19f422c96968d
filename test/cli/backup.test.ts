/**
 * Issue 29, point 3: `mohar backup` of a SQLite installation while envelopes are being signed and a bulk send runs;
 * `mohar restore` into a fresh data dir; a server on the restored copy. Checked: every envelope completed in the
 * backup downloads byte-identical (signed PDF and certificate), every audit chain verifies, the envelopes in flight
 * finish, the bulk send finishes, and the webhook receiver (shared by the original, stopped after the backup, and the
 * restored server) never gets the same event twice. Then the refusals: wrong passphrase, corrupted blob, non-empty
 * target.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Command } from 'commander';
import { backupCommands } from '../../cli/backup.js';
import { readManifest } from '../../server/backup/manifest.js';
import { parseConfig } from '../../server/config.js';
import { blobFilePath } from '../../server/storage/blobs.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { call, serveProcess } from '../support/process-server.js';
import { API, LEGACY } from '../support/server.js';
import { makeSourceOverHttp, PROCESS_ADMIN, processApiKey, row } from '../server/bulk/helpers.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';
import { certificate, PASSPHRASE, runCli, sentEnvelope, signedPdf, signEnvelope } from './backup-support.js';

const env = { ...PROCESS_ADMIN, MOHAR_JOB_LEASE_SECONDS: '3', MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' };
const BULK_ROWS = 30;
const CLIENTS = 2;

interface Signed {
  readonly recipient: string;
  readonly documentId: string;
}

/** Clients that send and sign one-signer envelopes until told to stop; sent ones are remembered with their signer. */
function startClients(url: string, key: string) {
  const envelopes = new Map<string, Signed>();
  let stopping = false;
  const run = async (c: number) => {
    for (let n = 0; !stopping; n++) {
      const envelope = await sentEnvelope(url, key, `client-${c}-${n}`);
      envelopes.set(envelope.id, envelope);
      if (n % 2 === 0) await signEnvelope(url, key, envelope.id, envelope.recipient); // every other one stays in flight
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, (_, c) => run(c)));
  return {
    envelopes,
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}

function eventIds(receiver: TestReceiver): string[] {
  return receiver.received.map((r) => String(r.headers['x-service-event-id']));
}

/** What the backup's own database copy says: completed and in-flight envelopes with their documents. */
function envelopesInBackup(directory: string) {
  const copy = new BetterSqlite3(join(directory, 'mohar.sqlite'), { readonly: true });
  try {
    const rows = copy
      .prepare(
        `select e.id, e.status, e.certificate_sha256, d.document_id,
                (select count(*) from recipients r where r.envelope_id = e.id and r.status in ('active', 'viewed')) as waiting
         from envelopes e join envelope_documents d on d.envelope_id = e.id`,
      )
      .all() as {
      id: string;
      status: string;
      certificate_sha256: string | null;
      document_id: string;
      waiting: number;
    }[];
    return rows;
  } finally {
    copy.close();
  }
}

function unfinishedDeliveries(directory: string): number {
  const copy = new BetterSqlite3(join(directory, 'mohar.sqlite'), { readonly: true });
  try {
    const found = copy
      .prepare(`select count(*) as n from webhook_deliveries where status in ('pending', 'delivering')`)
      .get() as { n: number };
    return found.n;
  } finally {
    copy.close();
  }
}

test('registers backup [dir], backup verify [dir] --live, backup hold-webhooks and restore <dir>', () => {
  const program = new Command('mohar');
  backupCommands(program, () => parseConfig({}));
  const backup = program.commands.find((c) => c.name() === 'backup');
  assert.deepEqual(
    backup?.commands.map((c) => c.name()),
    ['verify', 'hold-webhooks'],
  );
  const verify = backup.commands.find((c) => c.name() === 'verify');
  assert.deepEqual(
    verify?.options.map((o) => o.long),
    ['--live'],
  );
  const restore = program.commands.find((c) => c.name() === 'restore');
  assert.deepEqual(
    restore?.options.map((o) => o.long),
    ['--data-dir', '--resend-webhooks'],
  );
  const flags = [backup, verify, restore].flatMap((c) => c.options.map((o) => o.long ?? ''));
  assert.ok(!flags.some((f) => /pass/.test(f)), 'no passphrase option: it is read from a prompt or stdin');
});

describe('mohar backup and restore (SQLite)', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const receivers: TestReceiver[] = [];
  const scratch: string[] = [];
  let backupDir = '';
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  const newDatabase = async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    return database;
  };
  const serve = async (database: TestDatabase) => {
    const server = await serveProcess(database, env);
    children.push(server.child);
    return server;
  };
  const stop = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const newDirectory = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mohar-backup-'));
    scratch.push(dir);
    return dir;
  };

  test('a backup taken under load restores into an installation that carries on', async (t) => {
    const original = await newDatabase();
    const receiver = await startReceiver();
    receivers.push(receiver);
    // A slow receiver: deliveries queue up, so the backup catches some unfinished that the original then delivers.
    receiver.respond = () => ({ status: 200, delayMs: 100 });
    const first = await serve(original);
    const key = await processApiKey(first.url);
    const token = (
      await call(first.url, 'POST', `${LEGACY}/auth/login/`, {
        json: { email: PROCESS_ADMIN.MOHAR_ADMIN_EMAIL, password: PROCESS_ADMIN.MOHAR_ADMIN_PASSWORD },
      })
    ).json().access_token as string;
    const hook = await call(first.url, 'POST', `${LEGACY}/webhook/save/`, {
      token,
      json: { webhook_url: receiver.url },
    });
    assert.equal(hook.status, 200, hook.bytes.toString());

    // Load: clients sending and signing, and a bulk send, all running while the backup is taken.
    const clients = startClients(first.url, key);
    const source = await makeSourceOverHttp(first.url, key);
    const bulk = await call(first.url, 'POST', `${API}/bulk-sends`, {
      key,
      json: { source_envelope_id: source.id, rows: Array.from({ length: BULK_ROWS }, (_, i) => row(i)) },
      headers: { 'idempotency-key': 'bulk-under-backup' },
    });
    assert.equal(bulk.status, 202, bulk.bytes.toString());
    const bulkId = bulk.json().bulk_send_id as string;
    while (clients.envelopes.size < 6) await sleep(50);

    backupDir = join(await newDirectory(), 'backup');
    const backup = await runCli(original, ['backup', backupDir], `${PASSPHRASE}\n`);
    assert.equal(backup.status, 0, backup.stdout + backup.stderr);
    assert.match(backup.stdout, /backup of .* blobs/);
    assert.ok(
      !backup.stdout.includes(PASSPHRASE) && !backup.stderr.includes(PASSPHRASE),
      'the passphrase is not echoed',
    );

    // The original runs on after the backup (delivering the webhooks the backup shows unfinished), then stops.
    await clients.stop();
    const inBackup = envelopesInBackup(backupDir);
    const completed = inBackup.filter((e) => e.status === 'completed');
    // In flight: its signer has not acted yet (a signed one may be sent still, its completion a job away).
    const inFlight = inBackup.filter((e) => e.status === 'sent' && e.waiting > 0 && clients.envelopes.has(e.id));
    assert.ok(completed.length >= 2, `some envelopes completed before the backup (${completed.length})`);
    const originalBytes = new Map<string, { pdf: Buffer; certificate: Buffer }>();
    for (const e of completed) {
      originalBytes.set(e.id, {
        pdf: await signedPdf(first.url, key, e.id, e.document_id),
        certificate: await certificate(first.url, key, e.id),
      });
    }
    for (let count = -1; count !== receiver.received.length;) {
      count = receiver.received.length;
      await sleep(1500);
    }
    await stop(first.child);
    const receivedFromOriginal = receiver.received.length;

    const verified = await runCli(original, ['backup', 'verify', backupDir]);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /0 problems/);

    const restored = await newDatabase();
    const restore = await runCli(restored, ['restore', backupDir], `${PASSPHRASE}\n`);
    assert.equal(restore.status, 0, restore.stdout + restore.stderr);
    const held = Number(/(\d+) unfinished webhook deliver/.exec(restore.stdout)?.[1]);
    assert.equal(held, unfinishedDeliveries(backupDir), 'every delivery the backup shows unfinished is held');
    t.diagnostic(
      `${completed.length} completed and ${inFlight.length} in flight in the backup; ${held} deliveries held`,
    );

    const second = await serve(restored);
    for (const e of completed) {
      const original = originalBytes.get(e.id)!;
      const pdf = await signedPdf(second.url, key, e.id, e.document_id);
      assert.ok(pdf.equals(original.pdf), `envelope ${e.id}: the signed PDF downloads byte-identical`);
      // A certificate the backup holds is the same bytes; one issued after the snapshot is issued anew (its own seal).
      const issued = await certificate(second.url, key, e.id);
      if (e.certificate_sha256 !== null) assert.ok(issued.equals(original.certificate), `certificate of ${e.id}`);
    }
    for (const e of inFlight) await signEnvelope(second.url, key, e.id, clients.envelopes.get(e.id)!.recipient);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const batch = (await call(second.url, 'GET', `${API}/bulk-sends/${bulkId}`, { key })).json();
      if (batch.status === 'completed') break;
      assert.ok(Date.now() < deadline, `the restored bulk send finishes (${batch.status})`);
      await sleep(250);
    }
    // The restored server sends its new events (the in-flight envelopes' completions, the bulk rows made after).
    const completions = inFlight.length;
    const waitUntil = Date.now() + 30_000;
    while (receiver.received.length < receivedFromOriginal + completions && Date.now() < waitUntil) await sleep(100);
    await sleep(2000); // anything held by mistake would go out by now
    await stop(second.child);

    const ids = eventIds(receiver);
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(twice, [], 'no event reaches the receiver twice across the original and the restored server');
    assert.ok(receiver.received.length > receivedFromOriginal, 'the restored server delivers its own events');

    const audit = await runCli(restored, ['backup', 'verify', '--live']);
    assert.equal(audit.status, 0, audit.stdout + audit.stderr);
    assert.match(audit.stdout, /installation: \d+ blobs re-hashed, \d+ audit chains checked, 0 problems/);
  });

  test('a wrong passphrase writes nothing', async () => {
    const target = await newDatabase();
    const result = await runCli(target, ['restore', backupDir], 'not the passphrase\n');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /passphrase does not open the backup keys/);
    assert.deepEqual(await readdir(target.dataDir), [], 'the data dir stays empty');
  });

  test('a non-empty target is refused, for restore and for backup', async () => {
    const target = await newDatabase();
    await writeFile(join(target.dataDir, 'something'), 'here');
    const restore = await runCli(target, ['restore', backupDir], `${PASSPHRASE}\n`);
    assert.equal(restore.status, 1);
    assert.match(restore.stderr, /is not empty/);
    assert.deepEqual(await readdir(target.dataDir), ['something']);
    const backup = await runCli(databases[0]!, ['backup', target.dataDir], `${PASSPHRASE}\n`);
    assert.equal(backup.status, 1);
    assert.match(backup.stderr, /is not empty/);
  });

  test('a corrupted blob is found by verify and refused by restore', async () => {
    const damaged = join(await newDirectory(), 'damaged');
    await cp(backupDir, damaged, { recursive: true });
    const manifest = await readManifest(damaged);
    const victim = manifest.blobs[0]!.sha256;
    const path = blobFilePath(join(damaged, 'blobs'), victim);
    await writeFile(path, Buffer.from('%PDF-1.7 not what was stored'));

    const verify = await runCli(databases[0]!, ['backup', 'verify', damaged]);
    assert.equal(verify.status, 1, verify.stdout);
    assert.match(verify.stdout, new RegExp(`PROBLEM  blob ${victim} has changed`));
    assert.match(verify.stdout, /1 problem$/m);

    const target = await newDatabase();
    const restore = await runCli(target, ['restore', damaged], `${PASSPHRASE}\n`);
    assert.equal(restore.status, 1);
    assert.match(restore.stderr, /does not verify, nothing was written/);
    assert.deepEqual(await readdir(target.dataDir), []);
  });
});
