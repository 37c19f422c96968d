/**
 * Redelivering a delivery that had succeeded (issue 28, point 7): the earlier success stays on the record. The
 * delivery keeps delivered_at while its one extra attempt is pending and after it, the attempt log keeps the first
 * attempt's 200 beside the redelivery's answer, and a failing redelivery is one attempt, not a new schedule of
 * retries. A real receiver on loopback, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestServer } from '../../support/server.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { RETRY_DELAYS_SECONDS } from '../../../common/webhook-retries.js';
import { startReceiver, type TestReceiver } from './receiver.js';

interface Delivery {
  status: string;
  success: boolean;
  attempts: number;
  max_attempts: number;
  last_status_code: number | null;
  delivered_at: string | null;
  attempt_log: { attempt: number; status_code: number | null; success: boolean }[];
}

for (const kind of DATABASES) {
  describe(`redelivering a succeeded delivery on ${kind}`, () => {
    let server: TestServer;
    let receiver: TestReceiver;
    let worker: WebhookWorker;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      receiver = await startReceiver();
      worker = new WebhookWorker(server.ctx, { random: () => 0.5, listen: false });
    });
    after(async () => {
      await receiver?.close();
      await server?.close();
    });

    async function deliveredTestEvent(): Promise<{ token: string; id: string; deliveredAt: string }> {
      const owner = await server.newAccount();
      const saved = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      receiver.respond = () => 200;
      const queued = await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
      const id = String(queued.json().delivery_id);
      assert.equal(await worker.deliverDue(), 1);
      const first = await detail(owner.token, id);
      assert.equal(first.status, 'succeeded');
      assert.ok(first.delivered_at);
      return { token: owner.token, id, deliveredAt: first.delivered_at };
    }

    async function detail(token: string, id: string): Promise<Delivery> {
      const response = await server.request('GET', `${LEGACY}/webhook/deliveries/${id}/`, { token });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as Delivery;
    }

    test('pending again, the success is kept; a second 200 adds an attempt', async () => {
      const { token, id, deliveredAt } = await deliveredTestEvent();
      server.clock.advance(60);
      const again = await server.request('POST', `${LEGACY}/webhook/deliveries/${id}/redeliver/`, { token });
      assert.equal(again.statusCode, 202, again.body);
      const pending = await detail(token, id);
      assert.equal(pending.status, 'pending');
      assert.equal(pending.delivered_at, deliveredAt, 'the earlier success is still on the delivery');
      assert.equal(pending.last_status_code, 200, 'the last real answer, not an invented one');
      assert.equal(pending.max_attempts, 2, 'one more attempt');
      assert.deepEqual(
        pending.attempt_log.map((a) => [a.attempt, a.status_code, a.success]),
        [[1, 200, true]],
      );

      assert.equal(await worker.deliverDue(), 1);
      const done = await detail(token, id);
      assert.equal(done.status, 'succeeded');
      assert.ok(done.delivered_at! > deliveredAt, 'delivered_at moves to the latest success');
      assert.deepEqual(done.attempt_log.map((a) => [a.attempt, a.status_code, a.success]).sort(), [
        [1, 200, true],
        [2, 200, true],
      ]);
    });

    test('a redelivery the receiver refuses: one attempt, the failure logged beside the earlier success', async () => {
      const { token, id, deliveredAt } = await deliveredTestEvent();
      const before = receiver.received.length;
      receiver.respond = () => 500;
      try {
        await server.request('POST', `${LEGACY}/webhook/deliveries/${id}/redeliver/`, { token });
        assert.equal(await worker.deliverDue(), 1);
        for (const wait of RETRY_DELAYS_SECONDS.slice(0, 3)) {
          server.clock.advance(wait);
          assert.equal(await worker.deliverDue(), 0, 'no retries of a redelivered event');
        }
      } finally {
        receiver.respond = () => 200;
      }
      assert.equal(receiver.received.length, before + 1);
      const after = await detail(token, id);
      assert.equal(after.status, 'dead');
      assert.equal(after.last_status_code, 500);
      assert.equal(after.delivered_at, deliveredAt, 'the event did reach the receiver once: that stays visible');
      assert.deepEqual(after.attempt_log.map((a) => [a.attempt, a.status_code, a.success]).sort(), [
        [1, 200, true],
        [2, 500, false],
      ]);
    });
  });
}
