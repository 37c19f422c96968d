/**
 * The webhook worker at shutdown (issue 29 point 5): an attempt still waiting for its receiver when stop()'s
 * timeout ends has its lease released, so the next worker (here or in another instance) retries it at once
 * instead of after the lease; an attempt that answers in time is recorded, not repeated. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft } from '../../support/envelopes.js';
import { LEGACY, startTestServer, type TestServer } from '../../support/server.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { startReceiver, type TestReceiver } from './receiver.js';

for (const kind of DATABASES) {
  describe(`webhook worker stop on ${kind}`, () => {
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

    test('an attempt in flight past the timeout is released and retried at once by the next worker', async () => {
      const owner = await server.newAccount();
      const saved = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      // The first answer comes too late for the stop; later ones at once.
      let arrived!: () => void;
      const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
      receiver.respond = (index) => {
        if (index > 0) return 200;
        arrived();
        return { status: 200, delayMs: 1500 };
      };
      await makeDraft(server, owner.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] });

      const first = new WebhookWorker(server.ctx, { listen: false, leaseMs: 60_000, owner: 'first' });
      first.start();
      await firstArrived;
      await first.stop({ timeoutMs: 50 });
      const released = await server.ctx.db.selectFrom('webhook_deliveries').selectAll().execute();
      assert.equal(released.length, 1);
      assert.equal(released[0]!.status, 'delivering');
      assert.ok(released[0]!.lease_expires_at! <= new Date().toISOString(), 'the lease ended at stop()');

      const next = new WebhookWorker(server.ctx, { listen: false, owner: 'next' });
      const n = await next.deliverDue();
      assert.equal(n, 1, 'retried without waiting 60 s');
      const delivered = await server.ctx.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      assert.equal(delivered.status, 'succeeded');
      await receiver.waitFor(2, 5_000);
      assert.equal(delivered.attempts, 2, 'the interrupted attempt and the retry');
    });
  });
}
