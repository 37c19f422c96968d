/**
 * The running worker: woken by a commit (NOTIFY on PostgreSQL, in-process on SQLite) rather than by its
 * poll; and several instances on one PostgreSQL database sharing the deliveries without ever making the
 * same attempt twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestServer } from '../../support/server.js';
import { openRuntime, type Runtime } from '../../../server/runtime.js';
import { webhookTransport, type WebhookTransport } from '../../../server/webhooks/transport.js';
import { WebhookWorker, webhookWorkerFor } from '../../../server/webhooks/worker.js';
import { startReceiver, type TestReceiver } from './receiver.js';

for (const kind of DATABASES) {
  describe(`the delivery worker on ${kind}`, () => {
    let server: TestServer;
    let receiver: TestReceiver;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver?.close();
      await server?.close();
    });

    test('a committed event wakes the worker, as the server runs it (own pool on PostgreSQL), at once (its poll is an hour away)', async () => {
      const owner = await server.newAccount();
      await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
      const worker = webhookWorkerFor(server.ctx, { pollIntervalMs: 3_600_000 });
      worker.start();
      try {
        // Let the first (empty) poll and, on PostgreSQL, the LISTEN connection settle.
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (let i = 1; i <= 3; i++) {
          const sent = Date.now();
          await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
          await receiver.waitFor(i, 3_000);
          assert.ok(Date.now() - sent < 3_000);
        }
      } finally {
        await worker.stop();
      }
    });
  });
}

describe('several server instances on one PostgreSQL database', () => {
  let server: TestServer;
  let receiver: TestReceiver;
  const runtimes: Runtime[] = [];
  before(async () => {
    server = await startTestServer('postgres', { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const runtime of runtimes) await runtime.close();
    await receiver?.close();
    await server?.close();
  });

  test('three workers share 300 deliveries: every event delivered exactly once, each attempt made once', async () => {
    const owners = await Promise.all([1, 2, 3].map(() => server.newAccount()));
    for (const owner of owners) {
      await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
    }
    for (let i = 0; i < 100; i++) {
      await Promise.all(
        owners.map((owner) => server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token })),
      );
    }
    receiver.respond = () => ({ status: 200, delayMs: 5 });
    const counts = [0, 0, 0];
    const workers: WebhookWorker[] = [];
    const transports: WebhookTransport[] = [];
    for (let i = 0; i < 3; i++) {
      // Each worker on its own connection pool, as separate server processes would be.
      const runtime = await openRuntime(server.ctx.config, server.clock.now);
      runtimes.push(runtime);
      const inner = webhookTransport({ allowPrivate: true });
      transports.push(inner);
      const transport: WebhookTransport = {
        post: (request) => ((counts[i]! += 1), inner.post(request)),
        close: () => inner.close(),
      };
      workers.push(new WebhookWorker(runtime.ctx, { transport, concurrency: 8, owner: `instance-${i}` }));
    }
    try {
      for (const worker of workers) worker.start();
      await receiver.waitFor(300, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // any duplicate would arrive now
    } finally {
      for (const worker of workers) await worker.stop();
      for (const transport of transports) transport.close();
      receiver.respond = () => 200;
    }
    const ids = receiver.received.map((r) => String(r.headers['x-service-event-id']));
    assert.equal(ids.length, 300, 'no delivery was made twice');
    assert.equal(new Set(ids).size, 300);
    assert.ok(
      counts.every((c) => c > 0),
      `every instance took part (${counts.join(', ')})`,
    );
    assert.equal(
      counts.reduce((a, b) => a + b),
      300,
    );
    const attempts = await server.ctx.db
      .selectFrom('webhook_attempts')
      .select(({ fn }) => [fn.countAll<number>().as('n')])
      .executeTakeFirstOrThrow();
    assert.equal(Number(attempts.n), 300, 'one attempt per delivery in the log');
    const states = await server.ctx.db.selectFrom('webhook_deliveries').select('status').distinct().execute();
    assert.deepEqual(
      states.map((s) => s.status),
      ['succeeded'],
    );
  });
});
