/**
 * Issue 33, point 1: a real `mohar serve` process killed with SIGKILL between an Idempotency-Key request's
 * effect and its answer (MOHAR_TEST_CRASH_POINT=after-effect), restarted on the same data, then the request
 * retried with the same key, on SQLite and PostgreSQL:
 *  - one-commit routes (POST /envelopes, POST /bulk-sends, POST /templates) replay the committed answer,
 *    byte for byte as every replay, and exactly one thing exists;
 *  - a three-commit route (instantiate with send: true) answers idempotency_in_progress only until the crashed
 *    process's lease lapses (MOHAR_JOB_LEASE_SECONDS), then runs again.
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

const LEASE_SECONDS = 3;

type Server = Awaited<ReturnType<typeof serveProcess>>;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A request that the server dies answering: the connection drops, the process is gone by SIGKILL. */
async function crashOn(server: Server, method: string, path: string, options: Parameters<typeof call>[3]) {
  const outcome = await call(server.url, method, path, options).then(
    (answer) => `${answer.status} ${answer.bytes.toString()}`,
    (error: unknown) => error,
  );
  assert.ok(outcome instanceof TypeError, `the connection drops without an answer, not ${String(outcome)}`);
  await exited(server.child);
  assert.equal(server.child.signalCode, 'SIGKILL', 'killed at the crash point');
}

/** The same request twice more: both replays, byte for byte the same. */
async function replayedTwice(url: string, method: string, path: string, options: Parameters<typeof call>[3]) {
  const first = await fetchRaw(url, method, path, options);
  const again = await fetchRaw(url, method, path, options);
  assert.equal(first.replayed, 'true', first.bytes.toString());
  assert.equal(again.replayed, 'true');
  assert.equal(again.status, first.status);
  assert.ok(again.bytes.equals(first.bytes), 'every replay answers the same bytes');
  return first;
}

async function fetchRaw(url: string, method: string, path: string, options: Parameters<typeof call>[3]) {
  const headers: Record<string, string> = { ...options?.headers, 'x-api-key': options!.key! };
  const init: RequestInit = { method, headers };
  if (options?.json !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.json);
  }
  const response = await fetch(`${url}${path}`, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    bytes,
    json: () => JSON.parse(bytes.toString()),
  };
}

describe('SIGKILL between an Idempotency-Key request and its answer', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`on ${kind}: a retry replays the committed answer, or runs again once the lease lapsed`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      const start = async (crash: boolean) => {
        const server = await serveProcess(database, {
          ...PROCESS_ADMIN,
          MOHAR_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
          ...(crash ? { MOHAR_TEST_CRASH_POINT: 'after-effect' } : {}),
        });
        children.push(server.child);
        return server;
      };

      // POST /envelopes: the draft and its key's answer in one commit.
      let server = await start(true);
      const key = await processApiKey(server.url);
      const createOne = { key, json: { title: 'Crash one' }, headers: { 'idempotency-key': 'envelope-1' } };
      await crashOn(server, 'POST', `${API}/envelopes`, createOne);
      server = await start(false);
      const envelope = await replayedTwice(server.url, 'POST', `${API}/envelopes`, createOne);
      assert.equal(envelope.status, 201);
      const fresh = { key, json: { title: 'No crash' }, headers: { 'idempotency-key': 'envelope-2' } };
      const firstAnswer = await fetchRaw(server.url, 'POST', `${API}/envelopes`, fresh);
      assert.equal(firstAnswer.status, 201);
      const replay = await replayedTwice(server.url, 'POST', `${API}/envelopes`, fresh);
      assert.ok(replay.bytes.equals(firstAnswer.bytes), 'a replay is the first answer, byte for byte');
      const source = await makeSourceOverHttp(server.url, key);
      server.child.kill('SIGTERM');
      await exited(server.child);

      // POST /bulk-sends: the batch, its rows, its first job and its key's answer in one transaction.
      server = await start(true);
      const bulk = {
        key,
        json: { source_envelope_id: source.id, rows: [row(0), row(1), row(2)] },
        headers: { 'idempotency-key': 'bulk-1' },
      };
      await crashOn(server, 'POST', `${API}/bulk-sends`, bulk);
      server = await start(true);
      const batch = await replayedTwice(server.url, 'POST', `${API}/bulk-sends`, bulk);
      assert.equal(batch.status, 202);

      // POST /templates (from an envelope): the template and its key's answer in one transaction.
      const template = {
        key,
        json: { source_envelope_id: source.id, name: 'Crash template' },
        headers: { 'idempotency-key': 'template-1' },
      };
      await crashOn(server, 'POST', `${API}/templates`, template);
      server = await start(true);
      const made = await replayedTwice(server.url, 'POST', `${API}/templates`, template);
      assert.equal(made.status, 201);
      const templateId = made.json().template_id as string;

      // Instantiate with send: true, three commits: the crashed process's in-flight key lapses with its lease.
      const instantiate = {
        key,
        json: {
          title: 'Crash instantiate',
          recipients: {
            signer_1: { name: 'One', email: 'one@example.com' },
            signer_2: { name: 'Two', email: 'two@example.com' },
          },
          send: true,
        },
        headers: { 'idempotency-key': 'instantiate-1' },
      };
      await crashOn(server, 'POST', `${API}/templates/${templateId}/instantiate`, instantiate);
      const crashedAt = Date.now();
      server = await start(false);
      let answered;
      for (;;) {
        answered = await fetchRaw(server.url, 'POST', `${API}/templates/${templateId}/instantiate`, instantiate);
        if (answered.status !== 409) break;
        assert.equal(answered.json().code, 'idempotency_in_progress');
        assert.ok(Date.now() - crashedAt < (LEASE_SECONDS + 5) * 1000, 'in progress only until the lease lapses');
        await sleep(250);
      }
      assert.equal(answered.status, 201, answered.bytes.toString());
      assert.equal(answered.replayed, null, 'a run again, not a replay');
      const rerun = await replayedTwice(server.url, 'POST', `${API}/templates/${templateId}/instantiate`, instantiate);
      assert.ok(rerun.bytes.equals(answered.bytes));
      server.child.kill('SIGTERM');
      await exited(server.child);

      const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      try {
        const count = async (query: ReturnType<typeof sql<{ n: number | string }>>) =>
          Number((await query.execute(storage.db)).rows[0]!.n);
        assert.equal(await count(sql`select count(*) as n from envelopes where title = 'Crash one'`), 1);
        assert.equal(
          await count(sql`select count(*) as n from envelopes where id = ${envelope.json().id as string}`),
          1,
          'the replay names the envelope that exists',
        );
        assert.equal(await count(sql`select count(*) as n from bulk_sends where idempotency_key = 'bulk-1'`), 1);
        assert.equal(await count(sql`select count(*) as n from templates where name = 'Crash template'`), 1);
        assert.equal(await count(sql`select count(*) as n from idempotency_keys where state <> 'done'`), 0);
      } finally {
        await storage.close();
      }
    });
  }
});
