/**
 * Issue 29 point 5: SIGTERM during signing load and a bulk send, on SQLite and PostgreSQL, with a real
 * `mohar serve` process. The server exits 0 within its deadline, leaving no lease held (jobs, bulk rows,
 * webhook deliveries, Idempotency-Keys); restarted on the same data it finishes everything, and then:
 *  - every acknowledged act is there, every create retried with its key exists once;
 *  - every bulk row has exactly one envelope, sent;
 *  - the webhook receiver got each event id once (deliveries in flight at SIGTERM were finished and
 *    recorded, not repeated), and each completed envelope one envelope.completed;
 *  - no mail was queued twice (outbox), no job is dead.
 * The job lease stays at its default (60 s): the restart must not need a lease to lapse.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectStorage } from '../../server/storage/connect.js';
import { EVENT_ID_HEADER } from '../../server/webhooks/verify.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { API, LEGACY, multipartBody } from '../support/server.js';
import { makeSourceOverHttp, PROCESS_ADMIN, processApiKey, row } from '../server/bulk/helpers.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';

const CLIENTS = 3;
const BULK_ROWS = 100;
const DEADLINE_MS = 20_000;
const env = {
  ...PROCESS_ADMIN,
  MOHAR_WEBHOOK_ALLOW_PRIVATE: '1',
  MOHAR_SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS),
  MOHAR_LOG_LEVEL: 'info',
};
const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf({ pages: 1 }) }]);

/** The server is going away: the connection failed, or it answered 503 while closing. */
class Stopped extends Error {}

interface Ledger {
  readonly created: Map<string, string>; // Idempotency-Key → envelope id
  readonly unanswered: Set<string>;
  readonly completed: Set<string>;
}

async function request(url: string, method: string, path: string, options: Parameters<typeof call>[3] = {}) {
  let response: Awaited<ReturnType<typeof call>>;
  try {
    response = await call(url, method, path, options);
  } catch (error) {
    if (error instanceof TypeError) throw new Stopped('connection failed');
    throw error;
  }
  if (response.status === 503) throw new Stopped(response.bytes.toString());
  return response;
}

async function create(url: string, key: string, idem: string, ledger: Ledger): Promise<string> {
  ledger.unanswered.add(idem);
  const created = await request(url, 'POST', `${API}/envelopes`, {
    key,
    json: { title: idem, recipients: [{ name: 'Signer', email: `${idem}@example.com` }] },
    headers: { 'idempotency-key': idem },
  });
  assert.equal(created.status, 201, created.bytes.toString());
  const id = created.json().id as string;
  const known = ledger.created.get(idem);
  if (known !== undefined) assert.equal(id, known, 'a retried key answers the same envelope');
  ledger.created.set(idem, id);
  ledger.unanswered.delete(idem);
  return id;
}

/** One envelope from create to completion. */
async function lifecycle(url: string, key: string, idem: string, ledger: Ledger): Promise<void> {
  const id = await create(url, key, idem, ledger);
  const document = await request(url, 'POST', `${API}/envelopes/${id}/documents`, {
    key,
    body: upload.body,
    contentType: upload.contentType,
  });
  assert.equal(document.status, 201, document.bytes.toString());
  const recipient = (await request(url, 'GET', `${API}/envelopes/${id}`, { key })).json().recipients[0].recipient_id;
  const field = { recipient_id: recipient, field_type: 1, page_number: 1, x: 40, y: 40, width: 200, height: 50 };
  const put = await request(url, 'PUT', `${API}/envelopes/${id}/documents/${document.json().document_id}/fields`, {
    key,
    json: { fields: [field] },
  });
  assert.equal(put.status, 200, put.bytes.toString());
  const send = await request(url, 'POST', `${API}/envelopes/${id}/send`, { key });
  assert.equal(send.status, 200, send.bytes.toString());
  const session = await request(url, 'POST', `${API}/envelopes/${id}/signing-sessions`, {
    key,
    json: { recipient_id: recipient, mode: 'redirect' },
  });
  const link = (session.json().signing_url as string).split('/sign/')[1];
  const signed = await request(url, 'POST', `${API}/signing/${link}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'signed' } },
  });
  assert.equal(signed.status, 200, signed.bytes.toString());
  ledger.completed.add(id);
}

/** Signs envelopes until the server goes away; any wrong answer fails the test. */
async function client(url: string, key: string, prefix: string, ledger: Ledger): Promise<void> {
  for (let n = 0; ; n++) {
    try {
      await lifecycle(url, key, `${prefix}-${n}`, ledger);
    } catch (error) {
      if (error instanceof Stopped) return;
      throw error;
    }
  }
}

async function batchOf(url: string, key: string, id: string) {
  return (await call(url, 'GET', `${API}/bulk-sends/${id}`, { key })).json() as {
    status: string;
    counts: { total: number; sent: number; failed: number };
  };
}

function completedEvents(receiver: TestReceiver): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const event = JSON.parse(r.rawBody.toString()) as { id: string; type: string; data: { envelope?: { id: string } } };
    if (event.type !== 'envelope.completed' || !event.data.envelope) continue;
    ids.set(event.data.envelope.id, (ids.get(event.data.envelope.id) ?? new Set()).add(event.id));
  }
  return ids;
}

/** After the stop: no lease is still held, so nothing waits for one to lapse. */
async function assertNoLeaseHeld(database: TestDatabase): Promise<void> {
  const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  try {
    const now = new Date().toISOString();
    const { db } = storage;
    const jobs = await db
      .selectFrom('jobs')
      .select(['id', 'kind'])
      .where('state', '=', 'running')
      .where('lease_expires_at', '>', now)
      .execute();
    assert.deepEqual(jobs, [], 'no job lease held');
    const rows = await db.selectFrom('bulk_send_rows').select('row_index').where('claimed_until', '>', now).execute();
    assert.deepEqual(rows, [], 'no bulk row claimed');
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'delivering')
      .where('lease_expires_at', '>', now)
      .execute();
    assert.deepEqual(deliveries, [], 'no webhook delivery leased');
    const keys = await db.selectFrom('idempotency_keys').select('key').where('state', '=', 'in_flight').execute();
    assert.deepEqual(keys, [], 'no Idempotency-Key in flight');
  } finally {
    await storage.close();
  }
}

describe('SIGTERM during signing load and a bulk send', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const receivers: TestReceiver[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`on ${kind}: exits 0 within the deadline; after the restart nothing is lost or done twice`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      const receiver = await startReceiver();
      receivers.push(receiver);
      // Answers take a moment, so that deliveries are in flight when the signal comes.
      receiver.respond = () => ({ status: 200, delayMs: 50 });
      const start = async () => {
        const server = await serveProcess(database, env);
        children.push(server.child);
        return server;
      };
      const ledger: Ledger = { created: new Map(), unanswered: new Set(), completed: new Set() };

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

      const clients = Array.from({ length: CLIENTS }, (_, c) => client(server.url, key, `${kind}-${c}`, ledger));
      // SIGTERM once the batch is under way and a few envelopes completed, while the clients go on.
      const patience = Date.now() + 120_000;
      while (Date.now() < patience) {
        const batch = await batchOf(server.url, key, bulkId);
        if (batch.counts.sent >= 25 && ledger.completed.size >= CLIENTS) break;
        await sleep(100);
      }
      const middle = await batchOf(server.url, key, bulkId);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        server.child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      let output = '';
      server.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server.child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const exit = await exited;
      const took = Date.now() - signalled;
      await Promise.all(clients);
      assert.deepEqual(exit, { code: 0, signal: null }, 'a clean exit');
      assert.ok(took < DEADLINE_MS, `stopped within the deadline (${took} ms): ${output}`);
      assert.ok(middle.counts.sent < BULK_ROWS, 'stopped in the middle of the batch');
      assert.ok(ledger.completed.size >= CLIENTS, `envelopes completed before the stop (${ledger.completed.size})`);
      await assertNoLeaseHeld(database);

      server = await start();
      for (const idem of [...ledger.unanswered]) await create(server.url, key, idem, ledger);
      const deadline = Date.now() + 180_000;
      for (;;) {
        const batch = await batchOf(server.url, key, bulkId);
        const events = completedEvents(receiver);
        if (batch.status === 'completed' && [...ledger.completed].every((id) => events.has(id))) {
          assert.deepEqual([batch.counts.total, batch.counts.sent, batch.counts.failed], [BULK_ROWS, BULK_ROWS, 0]);
          break;
        }
        assert.ok(Date.now() < deadline, `timed out: bulk ${batch.status} ${JSON.stringify(batch.counts)}`);
        await sleep(250);
      }
      // Let the last deliveries and mails go out, then stop (gracefully again) and look at the data.
      const quiet = Date.now() + 60_000;
      for (;;) {
        const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
        const pending = await storage.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('status', 'in', ['pending', 'delivering'])
          .executeTakeFirstOrThrow();
        const jobs = await storage.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('state', 'in', ['queued', 'running'])
          .where('run_at', '<=', new Date().toISOString())
          .executeTakeFirstOrThrow();
        await storage.close();
        if (Number(pending.n) === 0 && Number(jobs.n) === 0) break;
        assert.ok(Date.now() < quiet, `deliveries ${pending.n} and jobs ${jobs.n} still due`);
        await sleep(250);
      }
      const stopped = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await stopped;

      const perEventId = new Map<string, number>();
      for (const r of receiver.received) {
        const id = String(r.headers[EVENT_ID_HEADER]);
        perEventId.set(id, (perEventId.get(id) ?? 0) + 1);
      }
      assert.deepEqual(
        [...perEventId].filter(([, n]) => n !== 1),
        [],
        'each webhook event received once',
      );
      for (const [envelopeId, ids] of completedEvents(receiver)) {
        assert.equal(ids.size, 1, `one envelope.completed event id for ${envelopeId}`);
      }

      const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      try {
        const { db } = storage;
        const perTitle = await sql<{ title: string; n: number | string }>`
          select title, count(*) as n from envelopes where title like ${`${kind}-%`} group by title`.execute(db);
        const titles = new Map(perTitle.rows.map((r) => [r.title, Number(r.n)]));
        for (const idem of ledger.created.keys()) assert.equal(titles.get(idem), 1, `exactly one envelope for ${idem}`);
        for (const id of ledger.completed) {
          const envelope = await db
            .selectFrom('envelopes')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          assert.equal(envelope.status, 'completed', `completed ${id}`);
        }
        const perRow = await sql<{ row_index: number; n: number | string; sent: number | string }>`
          select row_index, count(*) as n, sum(case when status = 'sent' then 1 else 0 end) as sent
          from envelopes where bulk_send_id = ${bulkId} group by row_index`.execute(db);
        assert.equal(perRow.rows.length, BULK_ROWS, 'every bulk row has an envelope');
        assert.deepEqual(
          perRow.rows.filter((r) => Number(r.n) !== 1 || Number(r.sent) !== 1).map((r) => r.row_index),
          [],
          'exactly one envelope per bulk row, sent',
        );
        const completions = await sql<{ envelope_id: string; n: number | string }>`
          select envelope_id, count(*) as n from events where type = 'envelope.completed' group by envelope_id`.execute(
          db,
        );
        assert.deepEqual(
          completions.rows.filter((r) => Number(r.n) !== 1),
          [],
          'one envelope.completed per envelope',
        );
        const mails = await sql<{ kind: string; envelope_id: string; recipient_id: string; n: number | string }>`
          select kind, envelope_id, recipient_id, count(*) as n from outbox_mail
          group by kind, envelope_id, recipient_id having count(*) > 1`.execute(db);
        assert.deepEqual(mails.rows, [], 'no mail queued twice');
        const dead = await db.selectFrom('jobs').select(['kind', 'last_error']).where('state', '=', 'dead').execute();
        assert.deepEqual(dead, [], 'no job dead');
      } finally {
        await storage.close();
      }
    });
  }
});
