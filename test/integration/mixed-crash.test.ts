/**
 * Issue 33, point 3: a short mixed run (clients creating with Idempotency-Keys, uploading, sending and signing
 * envelopes to completion, a bulk send, a webhook receiver on loopback) with the server killed by SIGKILL at
 * random moments and restarted on the same data, on SQLite and PostgreSQL. After the last restart:
 *  - every acknowledged act is durable (created, sent, completed);
 *  - every completed envelope has exactly one envelope.completed event id, recorded and received;
 *  - every bulk row has exactly one envelope;
 *  - every create left without an answer by a crash, retried with its key, answers and exists exactly once.
 * Small enough for CI: three kills, each at a random moment soon after an envelope of its round completed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectStorage } from '../../server/storage/connect.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { API, LEGACY, multipartBody } from '../support/server.js';
import { makeSourceOverHttp, PROCESS_ADMIN, processApiKey, row } from '../server/bulk/helpers.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';

const KILLS = 3;
const CLIENTS = 3;
const BULK_ROWS = 20;
const env = { ...PROCESS_ADMIN, MOHAR_JOB_LEASE_SECONDS: '3', MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' };
const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf({ pages: 1 }) }]);

/** What the clients were told: only answered requests count. */
interface Ledger {
  readonly created: Map<string, string>; // Idempotency-Key → envelope id
  readonly unanswered: Set<string>; // keys whose create got no answer: retried after the restart
  readonly sent: Set<string>;
  readonly completed: Set<string>;
}

/** A create's request, the same on every retry of its key. */
const createRequest = (key: string, idem: string) => ({
  key,
  json: { title: idem, recipients: [{ name: 'Signer', email: `${idem}@example.com` }] },
  headers: { 'idempotency-key': idem },
});

async function create(url: string, key: string, idem: string, ledger: Ledger): Promise<string> {
  ledger.unanswered.add(idem);
  const created = await call(url, 'POST', `${API}/envelopes`, createRequest(key, idem));
  assert.equal(created.status, 201, created.bytes.toString());
  const id = created.json().id as string;
  const known = ledger.created.get(idem);
  if (known !== undefined) assert.equal(id, known, 'a retried key answers the same envelope');
  ledger.created.set(idem, id);
  ledger.unanswered.delete(idem);
  return id;
}

/** One envelope from create to completion; throws when the server dies under it. */
async function lifecycle(url: string, key: string, idem: string, ledger: Ledger): Promise<void> {
  const id = await create(url, key, idem, ledger);
  const document = await call(url, 'POST', `${API}/envelopes/${id}/documents`, {
    key,
    body: upload.body,
    contentType: upload.contentType,
  });
  assert.equal(document.status, 201, document.bytes.toString());
  const recipient = (await call(url, 'GET', `${API}/envelopes/${id}`, { key })).json().recipients[0].recipient_id;
  const field = { recipient_id: recipient, field_type: 1, page_number: 1, x: 40, y: 40, width: 200, height: 50 };
  const documentId = document.json().document_id as string;
  const put = await call(url, 'PUT', `${API}/envelopes/${id}/documents/${documentId}/fields`, {
    key,
    json: { fields: [field] },
  });
  assert.equal(put.status, 200, put.bytes.toString());
  const send = await call(url, 'POST', `${API}/envelopes/${id}/send`, { key });
  assert.equal(send.status, 200, send.bytes.toString());
  ledger.sent.add(id);
  const session = await call(url, 'POST', `${API}/envelopes/${id}/signing-sessions`, {
    key,
    json: { recipient_id: recipient, mode: 'redirect' },
  });
  const link = (session.json().signing_url as string).split('/sign/')[1];
  const signed = await call(url, 'POST', `${API}/signing/${link}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'signed' } },
  });
  assert.equal(signed.status, 200, signed.bytes.toString());
  assert.equal(signed.json().envelope_status, 'completed');
  ledger.completed.add(id);
}

/** Runs clients until the server dies: a failed fetch ends a client, a wrong answer fails the test. */
async function client(url: string, key: string, prefix: string, ledger: Ledger): Promise<void> {
  for (let n = 0; ; n++) {
    try {
      await lifecycle(url, key, `${prefix}-${n}`, ledger);
    } catch (error) {
      if (error instanceof TypeError) return; // fetch failed: the server is gone
      throw error;
    }
  }
}

function completedEventIds(receiver: TestReceiver): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const event = JSON.parse(r.rawBody.toString()) as { id: string; type: string; data: { envelope?: { id: string } } };
    if (event.type !== 'envelope.completed' || !event.data.envelope) continue;
    const set = ids.get(event.data.envelope.id) ?? new Set<string>();
    set.add(event.id);
    ids.set(event.data.envelope.id, set);
  }
  return ids;
}

describe('a mixed run with SIGKILLs', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const receivers: TestReceiver[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`on ${kind}: acknowledged acts durable, one completion per envelope, bulk rows and keys once`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const start = async () => {
        const server = await serveProcess(database, env);
        children.push(server.child);
        return server;
      };
      const ledger: Ledger = { created: new Map(), unanswered: new Set(), sent: new Set(), completed: new Set() };

      let server = await start();
      const key = await processApiKey(server.url);
      const token = (
        await call(server.url, 'POST', `${LEGACY}/auth/login/`, {
          json: { email: PROCESS_ADMIN.MOHAR_ADMIN_EMAIL, password: PROCESS_ADMIN.MOHAR_ADMIN_PASSWORD },
        })
      ).json().access_token as string;
      const hook = await call(server.url, 'POST', `${LEGACY}/webhook/save/`, {
        token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(hook.status, 200, hook.bytes.toString());
      const source = await makeSourceOverHttp(server.url, key);
      const bulk = await call(server.url, 'POST', `${API}/bulk-sends`, {
        key,
        json: { source_envelope_id: source.id, rows: Array.from({ length: BULK_ROWS }, (_, i) => row(i)) },
        headers: { 'idempotency-key': `bulk-${kind}` },
      });
      assert.equal(bulk.status, 202, bulk.bytes.toString());
      const bulkId = bulk.json().bulk_send_id as string;

      for (let round = 0; round <= KILLS; round++) {
        for (const idem of [...ledger.unanswered]) await create(server.url, key, idem, ledger);
        if (round === KILLS) break;
        const clients = Array.from({ length: CLIENTS }, (_, c) =>
          client(server.url, key, `${kind}-${round}-${c}`, ledger),
        );
        // Killed at a random moment after at least one envelope of this round completed (a loaded machine is slow).
        const completedBefore = ledger.completed.size;
        const patience = Date.now() + 60_000;
        while (ledger.completed.size === completedBefore && Date.now() < patience) await sleep(50);
        await sleep(Math.random() * 1000);
        const exited = new Promise((resolve) => server.child.once('exit', resolve));
        server.child.kill('SIGKILL');
        await Promise.all([exited, ...clients]);
        server = await start();
      }
      assert.ok(ledger.completed.size >= KILLS, `a few envelopes completed (${ledger.completed.size})`);

      // Acknowledged acts, as the API tells them after the last restart.
      for (const [idem, id] of ledger.created) {
        const envelope = await call(server.url, 'GET', `${API}/envelopes/${id}`, { key });
        assert.equal(envelope.status, 200, `created ${idem}`);
        const status = envelope.json().status as string;
        if (ledger.completed.has(id)) assert.equal(status, 'completed', `completed ${idem}`);
        else if (ledger.sent.has(id)) assert.notEqual(status, 'draft', `sent ${idem}`);
      }
      // The bulk send finishes; every completed envelope's event reaches the receiver.
      const deadline = Date.now() + 90_000;
      for (;;) {
        const batch = (await call(server.url, 'GET', `${API}/bulk-sends/${bulkId}`, { key })).json();
        const events = completedEventIds(receiver);
        if (batch.status === 'completed' && [...ledger.completed].every((id) => events.has(id))) break;
        assert.ok(Date.now() < deadline, `timed out: bulk ${batch.status}, ${events.size} completions received`);
        await sleep(250);
      }
      for (const [envelopeId, ids] of completedEventIds(receiver)) {
        assert.equal(ids.size, 1, `one envelope.completed event id for ${envelopeId}`);
      }
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));

      const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      try {
        const { db } = storage;
        const perTitle = await sql<{ title: string; n: number | string }>`
          select title, count(*) as n from envelopes where title like ${`${kind}-%`} group by title`.execute(db);
        const titles = new Map(perTitle.rows.map((r) => [r.title, Number(r.n)]));
        for (const idem of ledger.created.keys()) assert.equal(titles.get(idem), 1, `exactly one envelope for ${idem}`);
        const completions = await sql<{ envelope_id: string; n: number | string }>`
          select envelope_id, count(*) as n from events where type = 'envelope.completed' group by envelope_id`.execute(
          db,
        );
        assert.deepEqual(
          completions.rows.filter((r) => Number(r.n) !== 1),
          [],
          'one envelope.completed per envelope',
        );
        const perRow = await sql<{ row_index: number; n: number | string }>`
          select row_index, count(*) as n from envelopes where bulk_send_id = ${bulkId} group by row_index`.execute(db);
        assert.equal(perRow.rows.length, BULK_ROWS, 'every bulk row has an envelope');
        assert.deepEqual(
          perRow.rows.filter((r) => Number(r.n) !== 1),
          [],
          'exactly one envelope per bulk row',
        );
      } finally {
        await storage.close();
      }
    });
  }
});
