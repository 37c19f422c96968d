/**
 * A real `mohar serve` process killed with SIGKILL while 1,000 events wait for delivery (some delivered,
 * some in flight, most queued), then restarted: every event reaches the receiver at least once, and the
 * distinct event ids received are exactly the events recorded.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { connectStorage } from '../../server/storage/connect.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { multipartBody } from '../support/server.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';

const API = '/backend/api/v1';
const LEGACY = '/backend/othercompanyapi';
const EVENTS = 1000;
const ENVELOPES = 10;
const env = {
  MOHAR_ADMIN_EMAIL: 'admin@crash.test',
  MOHAR_ADMIN_PASSWORD: 'crash password 1234',
  MOHAR_WEBHOOK_ALLOW_PRIVATE: '1',
};

/** Runs `task` for 0..count-1 with `width` at a time. */
async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

describe('SIGKILL with 1,000 webhook events pending', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const receivers: TestReceiver[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(
      `on ${kind}: after a restart every event is delivered, and distinct ids = events recorded`,
      { timeout: 240_000 },
      async () => {
        const database = await createTestDatabase(kind);
        databases.push(database);
        const receiver = await startReceiver();
        receivers.push(receiver);
        // A slow receiver, so that deliveries pile up: at most 64 in flight, each answered after 3 s (within the 10 s
        // timeout).
        receiver.respond = () => ({ status: 200, delayMs: 3000 });

        let server = await serveProcess(database, env);
        children.push(server.child);
        const token = (
          await call(server.url, 'POST', `${LEGACY}/auth/login/`, {
            json: { email: env.MOHAR_ADMIN_EMAIL, password: env.MOHAR_ADMIN_PASSWORD },
          })
        ).json().access_token;
        const key = (await call(server.url, 'POST', `${LEGACY}/apikey/generate/`, { token })).json().api_key;
        assert.equal(
          (await call(server.url, 'POST', `${LEGACY}/webhook/save/`, { token, json: { webhook_url: receiver.url } }))
            .status,
          200,
        );

        // Real workflow events (envelope.created and envelope.sent) and portal test events: 1,000 in all, as fast as
        // the API takes them.
        const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf({ pages: 1 }) }]);
        await pool(ENVELOPES, 5, async () => {
          const envelope = (
            await call(server.url, 'POST', `${API}/envelopes`, {
              key,
              json: { title: 'Crash', recipients: [{ name: 'Asha', email: 'asha@example.com' }] },
            })
          ).json();
          const documentId = (
            await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/documents`, {
              key,
              body: upload.body,
              contentType: upload.contentType,
            })
          ).json().document_id;
          const fields = [
            {
              recipient_id: envelope.recipients[0].recipient_id,
              field_type: 1,
              page_number: 1,
              x: 40,
              y: 40,
              width: 200,
              height: 50,
            },
          ];
          assert.equal(
            (
              await call(server.url, 'PUT', `${API}/envelopes/${envelope.id}/documents/${documentId}/fields`, {
                key,
                json: { fields },
              })
            ).status,
            200,
          );
          assert.equal((await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/send`, { key })).status, 200);
        });
        await pool(EVENTS - 2 * ENVELOPES, 16, async () => {
          assert.equal((await call(server.url, 'POST', `${LEGACY}/webhook/test/`, { token })).status, 202);
        });

        server.child.kill('SIGKILL');
        await new Promise((resolve) => server.child.once('exit', resolve));
        const answeredBeforeKill = receiver.received.length;

        const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
        try {
          const recorded = await storage.db.selectFrom('events').select('id').execute();
          assert.equal(recorded.length, EVENTS, 'the events recorded');
          const waiting = await storage.db
            .selectFrom('webhook_deliveries')
            .select(['status'])
            .where('status', '<>', 'succeeded')
            .execute();
          assert.ok(
            waiting.length >= EVENTS / 2,
            `most events were still waiting at the kill (${waiting.length}; ${answeredBeforeKill} answered)`,
          );
          assert.ok(
            waiting.some((d) => d.status === 'delivering'),
            'some attempts were in flight at the kill',
          );

          receiver.respond = () => 200;
          server = await serveProcess(database, env);
          children.push(server.child);
          const distinct = () => new Set(receiver.received.map((r) => String(r.headers['x-service-event-id'])));
          // In-flight attempts are retried once their 30 s lease has expired.
          const unfinished = async () =>
            (
              await storage.db
                .selectFrom('webhook_deliveries')
                .select('id')
                .where('status', '<>', 'succeeded')
                .execute()
            ).length;
          const deadline = Date.now() + 150_000;
          while ((distinct().size < EVENTS || (await unfinished()) > 0) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 500));
          }

          const ids = distinct();
          assert.equal(ids.size, recorded.length, `distinct event ids received (${ids.size}) = events recorded`);
          assert.deepEqual([...ids].sort(), recorded.map((e) => e.id).sort());
          assert.ok(receiver.received.length >= EVENTS, 'at least once');
          const states = await storage.db.selectFrom('webhook_deliveries').select('status').distinct().execute();
          assert.deepEqual(
            states.map((s) => s.status),
            ['succeeded'],
          );
          const interrupted = await storage.db
            .selectFrom('webhook_attempts')
            .select('id')
            .where('error', 'like', '%interrupted%')
            .execute();
          assert.ok(interrupted.length > 0, 'the attempts cut by the kill are in the log as interrupted');
          server.child.kill('SIGTERM');
          await new Promise((resolve) => server.child.once('exit', resolve));
        } finally {
          await storage.close();
        }
      },
    );
  }
});
