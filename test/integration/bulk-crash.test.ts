/**
 * Bulk send across real `mohar serve` processes:
 *  - SIGKILL in the middle of a 2,000-row batch, restart on the same database: every row gets exactly one
 *    envelope, sent once (one envelope.sent event, one invitation), on SQLite and PostgreSQL;
 *  - two server instances on one PostgreSQL share a batch; one is frozen (SIGSTOP) in the middle of a
 *    chunk until its lease expires, the other takes the chunk over, then the frozen one resumes its rows
 *    as a zombie: still exactly one envelope per row, sent once.
 * MOHAR_JOB_LEASE_SECONDS is short so that recovery takes seconds, not the default minute.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectStorage } from '../../server/storage/connect.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { call, serveProcess } from '../support/process-server.js';
import { API } from '../support/server.js';
import { makeSourceOverHttp, PROCESS_ADMIN, processApiKey, row } from '../server/bulk/helpers.js';

const ROWS = 2000;
/** Two instances sharing one batch need enough rows to freeze one in the middle (after 200), not 2,000. */
const SHARED_ROWS = 600;
const LEASE_SECONDS = '3';

interface Counts {
  total: number;
  sent: number;
  failed: number;
}

async function batchOf(
  url: string,
  key: string,
  id: string,
): Promise<{ status: string; counts: Counts; failures: unknown[] }> {
  const response = await call(url, 'GET', `${API}/bulk-sends/${id}`, { key });
  assert.equal(response.status, 200, response.bytes.toString());
  return response.json();
}

async function waitUntil(
  url: string,
  key: string,
  id: string,
  done: (b: { status: string; counts: Counts }) => boolean,
  ms: number,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const batch = await batchOf(url, key, id);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`timed out: ${batch.status} ${JSON.stringify(batch.counts)}`);
    await sleep(100);
  }
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** In the database: one envelope per row, each sent, with one envelope.sent event and one invitation. */
async function assertExactlyOnce(database: TestDatabase, batchId: string, rowCount: number): Promise<void> {
  const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 2 });
  try {
    const { db } = storage;
    const perRow = await sql<{ row_index: number; n: number | string; sent: number | string }>`
      select row_index, count(*) as n, sum(case when status = 'sent' then 1 else 0 end) as sent from envelopes where bulk_send_id = ${batchId} group by row_index`.execute(
      db,
    );
    assert.equal(perRow.rows.length, rowCount, 'every row has an envelope');
    assert.deepEqual(
      perRow.rows.filter((r) => Number(r.n) !== 1 || Number(r.sent) !== 1).map((r) => r.row_index),
      [],
      'exactly one envelope per row, sent',
    );
    const events = await sql<{ n: number | string }>`
      select count(*) as n from events where type = 'envelope.sent' and envelope_id in (select id from envelopes where bulk_send_id = ${batchId})`.execute(
      db,
    );
    assert.equal(Number(events.rows[0]!.n), rowCount, 'one envelope.sent per envelope');
    const invitations = await sql<{ envelope_id: string; n: number | string }>`
      select envelope_id, count(*) as n from outbox_mail where kind = 'invitation' and envelope_id in (select id from envelopes where bulk_send_id = ${batchId}) group by envelope_id`.execute(
      db,
    );
    assert.equal(invitations.rows.length, rowCount);
    assert.ok(
      invitations.rows.every((r) => Number(r.n) === 1),
      "one invitation per envelope (the first signer's turn)",
    );
    const rows = await db
      .selectFrom('bulk_send_rows')
      .select(['status', 'claimed_by'])
      .where('bulk_send_id', '=', batchId)
      .execute();
    assert.ok(
      rows.every((r) => r.status === 'sent' && r.claimed_by === null),
      'every row sent and released',
    );
  } finally {
    await storage.close();
  }
}

describe('bulk send across server processes', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const start = async (database: TestDatabase) => {
    const server = await serveProcess(database, { ...PROCESS_ADMIN, MOHAR_JOB_LEASE_SECONDS: LEASE_SECONDS });
    children.push(server.child);
    return server;
  };
  after(async () => {
    for (const child of children) await stop(child, 'SIGKILL');
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`SIGKILL in the middle of a ${ROWS}-row batch on ${kind}, restart: every row exactly once`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      let server = await start(database);
      const key = await processApiKey(server.url);
      const source = await makeSourceOverHttp(server.url, key);
      const posted = await call(server.url, 'POST', `${API}/bulk-sends`, {
        key,
        json: { source_envelope_id: source.id, rows: Array.from({ length: ROWS }, (_, i) => row(i)) },
        headers: { 'idempotency-key': `crash-${kind}` },
      });
      assert.equal(posted.status, 202, posted.bytes.toString());
      const id = posted.json().bulk_send_id as string;

      const middle = await waitUntil(server.url, key, id, (b) => b.counts.sent >= 300, 120_000);
      await stop(server.child, 'SIGKILL');
      assert.ok(middle.counts.sent < ROWS, 'killed in the middle');

      server = await start(database);
      const done = await waitUntil(
        server.url,
        key,
        id,
        (b) => b.status !== 'running' && b.status !== 'queued',
        180_000,
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual([done.counts.total, done.counts.sent, done.counts.failed], [ROWS, ROWS, 0]);
      await stop(server.child, 'SIGTERM');
      await assertExactlyOnce(database, id, ROWS);
    });
  }

  test(
    'two instances on one PostgreSQL share a batch; one frozen past its lease comes back as a zombie: every row exactly once',
    { skip: !DATABASES.includes('postgres') },
    async () => {
      const database = await createTestDatabase('postgres');
      databases.push(database);
      // One after the other: the first start migrates and creates the first account.
      const first = await start(database);
      const second = await start(database);
      const key = await processApiKey(first.url);
      const source = await makeSourceOverHttp(first.url, key);
      const posted = await call(first.url, 'POST', `${API}/bulk-sends`, {
        key,
        json: { source_envelope_id: source.id, rows: Array.from({ length: SHARED_ROWS }, (_, i) => row(i)) },
        headers: { 'idempotency-key': 'two-instances' },
      });
      assert.equal(posted.status, 202, posted.bytes.toString());
      const id = posted.json().bulk_send_id as string;

      // Who runs the chunks: the lease owners seen (host:pid:…), sampled while the batch runs.
      const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      const owners = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const running = await storage.db
            .selectFrom('jobs')
            .select('lease_owner')
            .where('kind', '=', 'bulk_send.chunk')
            .where('state', '=', 'running')
            .execute();
          for (const r of running) if (r.lease_owner) owners.add(r.lease_owner.split(':')[1]!);
          await sleep(20);
        }
      })();
      try {
        // Freeze whichever instance holds the running chunk, in the middle of its rows, past its lease.
        await waitUntil(first.url, key, id, (b) => b.counts.sent >= 200, 120_000);
        let frozen: typeof first | undefined;
        while (!frozen) {
          const holder = await storage.db
            .selectFrom('jobs')
            .select('lease_owner')
            .where('kind', '=', 'bulk_send.chunk')
            .where('state', '=', 'running')
            .executeTakeFirst();
          frozen = [first, second].find((s) => holder?.lease_owner?.split(':')[1] === String(s.child.pid));
        }
        const other = frozen === first ? second : first;
        frozen.child.kill('SIGSTOP');
        await sleep(Number(LEASE_SECONDS) * 1000 * 2 + 500);
        frozen.child.kill('SIGCONT');

        const done = await waitUntil(
          other.url,
          key,
          id,
          (b) => b.status !== 'running' && b.status !== 'queued',
          180_000,
        );
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual([done.counts.total, done.counts.sent, done.counts.failed], [SHARED_ROWS, SHARED_ROWS, 0]);
        assert.deepEqual(
          [...owners].sort(),
          [String(first.child.pid), String(second.child.pid)].sort(),
          'both instances ran chunks of the batch',
        );
      } finally {
        sampling = false;
        await sampler;
        await storage.close();
      }
      await Promise.all([stop(first.child, 'SIGTERM'), stop(second.child, 'SIGTERM')]);
      await assertExactlyOnce(database, id, SHARED_ROWS);
    },
  );
});
