/**
 * The stop's deadline and its forced exit, with a real `mohar serve` and a webhook receiver that does not answer:
 *  - past MOHAR_SHUTDOWN_TIMEOUT_MS the attempt is given up, its lease released, the process exits 0, and the
 *    restarted server delivers the event;
 *  - a second SIGTERM during the stop exits at once with status 1 and says so.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { connectStorage } from '../../server/storage/connect.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { call, serveProcess } from '../support/process-server.js';
import { API, LEGACY } from '../support/server.js';
import { PROCESS_ADMIN, processApiKey } from '../server/bulk/helpers.js';
import { startReceiver, type TestReceiver } from '../server/webhooks/receiver.js';

const env = { ...PROCESS_ADMIN, MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' };

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

describe('the stop past its deadline, and a second signal', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  const receivers: TestReceiver[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const database of databases) await database.drop();
  });

  /** A server whose first webhook attempt hangs at the receiver; resolves once that attempt is in flight. */
  async function hangingDelivery(kind: (typeof DATABASES)[number], extra: Record<string, string>) {
    const database = await createTestDatabase(kind);
    databases.push(database);
    const receiver = await startReceiver();
    receivers.push(receiver);
    let arrived!: (eventId: string) => void;
    const inFlight = new Promise<string>((resolve) => (arrived = resolve));
    // The receiver records a request when it answers it: the hanging one is not in `received`, the retry is.
    receiver.respond = (index, request) => {
      if (index > 0) return 200;
      arrived(String(request.headers['x-service-event-id']));
      return { status: 200, delayMs: 20_000 };
    };
    const server = await serveProcess(database, { ...env, ...extra });
    children.push(server.child);
    let output = '';
    server.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<Exit>((resolve) =>
      server.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
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
    const created = await call(server.url, 'POST', `${API}/envelopes`, {
      key,
      json: { title: 'hanging', recipients: [{ name: 'A', email: 'a@example.com' }] },
    });
    assert.equal(created.status, 201, created.bytes.toString());
    const hangingEventId = await inFlight;
    return { database, receiver, server, exited, hangingEventId, output: () => output };
  }

  for (const kind of DATABASES) {
    test(`on ${kind}: past the deadline the attempt is given up and released, exit 0; the restart delivers it`, async () => {
      const { database, receiver, server, exited, hangingEventId, output } = await hangingDelivery(kind, {
        MOHAR_SHUTDOWN_TIMEOUT_MS: '1000',
        MOHAR_LOG_LEVEL: 'info',
      });
      server.child.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 0, signal: null }, output());
      assert.match(output(), /webhook worker stopped with attempts in flight/);
      assert.match(output(), /Mohar office server stopped\./);

      const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
      try {
        const row = await storage.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
        assert.equal(row.status, 'delivering', 'no outcome was recorded for the given-up attempt');
        assert.ok(row.lease_expires_at! <= new Date().toISOString(), 'its lease was released');
      } finally {
        await storage.close();
      }

      const again = await serveProcess(database, env);
      children.push(again.child);
      await receiver.waitFor(1, 30_000);
      assert.equal(receiver.received[0]!.headers['x-service-event-id'], hangingEventId, 'the same event, retried');
      again.child.kill('SIGTERM');
      await new Promise((resolve) => again.child.once('exit', resolve));
    });
  }

  test('a second SIGTERM during the stop exits at once with status 1 and a log line', async () => {
    const { server, exited, output } = await hangingDelivery('sqlite', { MOHAR_SHUTDOWN_TIMEOUT_MS: '60000' });
    server.child.kill('SIGTERM');
    while (!output().includes('shutting down')) await sleep(20);
    server.child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 1, signal: null });
    assert.match(output(), /shutdown forced: a second SIGTERM arrived during the shutdown/);
  });
});
