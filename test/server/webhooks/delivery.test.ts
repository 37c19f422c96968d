/**
 * Webhook deliveries end to end on SQLite and PostgreSQL, with real HTTP receivers on loopback: the events
 * of a completed envelope in order, verified by verifyWebhook and by a receiver written with plain
 * node:crypto; retries on the schedule with the same event id; 410 disables; secret rotation overlap; dead
 * letters; the developer-portal API.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { verifyWebhook } from '../../../server/webhooks/verify.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../common/webhook-retries.js';
import { startReceiver, type Received, type TestReceiver } from './receiver.js';

/** A receiver that knows nothing of Mohar: the interface's rules with node:crypto only. */
function plainVerify(received: Received, secret: string, nowSeconds: number): boolean {
  const timestamp = String(received.headers['x-service-timestamp']);
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(received.rawBody).digest();
  return String(received.headers['x-service-signature'])
    .split(',')
    .map((part) => part.trim().replace(/^sha256=/, ''))
    .some((hex) => hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

const event = (r: Received) =>
  JSON.parse(r.rawBody.toString()) as {
    id: string;
    type: string;
    sequence: number;
    account_id: string;
    data: { envelope: { id: string; status: string }; documents?: { sha256: string; download_url: string }[] };
  };

for (const kind of DATABASES) {
  describe(`webhook deliveries on ${kind}`, () => {
    let server: TestServer;
    let receiver: TestReceiver;
    let worker: WebhookWorker;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      receiver = await startReceiver();
      // Jitter fixed at 1.0, so the waits are exactly the documented schedule.
      worker = new WebhookWorker(server.ctx, { random: () => 0.5, listen: false });
    });
    after(async () => {
      await receiver?.close();
      await server?.close();
    });

    async function account(): Promise<TestAccount & { secret: string }> {
      const owner = await server.newAccount();
      const saved = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(saved.json().webhook_url, receiver.url);
      assert.match(saved.json().webhook_secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      return { ...owner, secret: saved.json().webhook_secret };
    }

    const fromAccount = (accountId: string) => receiver.received.filter((r) => event(r).account_id === accountId);

    test('a completed envelope: the documented events in order, each verified by verifyWebhook and by plain node:crypto', async () => {
      const owner = await account();
      const draft = await makeDraft(server, owner.key, {
        recipients: [
          { name: 'Asha', email: 'asha@example.com' },
          { name: 'Ravi', email: 'ravi@example.com' },
        ],
      });
      await sendDraft(server, owner.key, draft);
      for (const recipientId of draft.recipientIds) {
        const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: owner.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        });
        const token = session.json().signing_url.split('/sign/')[1];
        assert.equal((await server.request('GET', `${API}/signing/${token}`)).statusCode, 200);
        const signed = await server.request('POST', `${API}/signing/${token}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'signed' } },
        });
        assert.equal(signed.statusCode, 200, signed.body);
      }
      await server.runJobs();
      // The running worker, as the server runs it: woken by each commit.
      worker.start();
      const recorded = await server.ctx.db
        .selectFrom('events')
        .select(['id', 'type', 'sequence'])
        .where('envelope_id', '=', draft.id)
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        recorded.map((e) => e.type),
        [
          'envelope.created',
          'envelope.sent',
          'recipient.viewed',
          'recipient.signed',
          'recipient.viewed',
          'recipient.signed',
          'envelope.completed',
        ],
      );
      const deadline = Date.now() + 20_000;
      while (fromAccount(owner.accountId).length < recorded.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await worker.stop();
      const got = fromAccount(owner.accountId);
      assert.deepEqual(
        got.map((r) => event(r).id),
        recorded.map((e) => e.id),
        'every event once, in per-envelope order',
      );
      assert.deepEqual(
        got.map((r) => event(r).sequence),
        [1, 2, 3, 4, 5, 6, 7],
      );
      const seen = new Set<string>();
      for (const r of got) {
        const now = server.clock.now();
        const verified = await verifyWebhook({
          rawBody: r.rawBody,
          headers: r.headers,
          secrets: owner.secret,
          seen,
          now,
        });
        assert.equal(verified.ok, true, JSON.stringify(verified));
        assert.equal(
          plainVerify(r, owner.secret, Math.floor(now.getTime() / 1000)),
          true,
          'plain node:crypto verifies',
        );
        assert.equal(r.headers['content-type'], 'application/json');
        assert.match(String(r.headers['user-agent']), /^Mohar/);
        assert.equal(r.headers['x-service-event-id'], event(r).id);
        assert.equal(r.headers['x-service-event-type'], event(r).type);
      }
      const completed = event(got.at(-1)!);
      assert.equal(completed.data.envelope.status, 'completed');
      const final = await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
        key: owner.key,
      });
      const { createHash } = await import('node:crypto');
      assert.equal(
        completed.data.documents![0]!.sha256,
        createHash('sha256').update(final.rawPayload).digest('hex'),
        'envelope.completed names the final SHA-256',
      );
      assert.match(
        completed.data.documents![0]!.download_url,
        new RegExp(`/envelopes/${draft.id}/documents/${draft.documentId}/download$`),
      );
      assert.equal(
        plainVerify(got[0]!, 'whsec_wrong', Math.floor(Date.now() / 1000)),
        false,
        'a wrong secret does not verify',
      );

      const log = (await server.request('GET', `${LEGACY}/webhook/attempts/?limit=200`, { token: owner.token })).json();
      assert.equal(log.items.length, recorded.length);
      assert.ok(
        log.items.every(
          (a: { success: boolean; status_code: number; attempt: number; webhook_url: string }) =>
            a.success && a.status_code === 200 && a.attempt === 1 && a.webhook_url === receiver.url,
        ),
      );
    });

    test('a receiver down for the first 3 attempts gets the event on the 4th, with the same event id; the log shows all 4', async () => {
      const owner = await account();
      const before = receiver.received.length;
      let calls = 0;
      receiver.respond = () => (++calls <= 3 ? 503 : 200);
      const test = await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
      assert.equal(test.statusCode, 202, test.body);
      const { event_id: eventId, delivery_id: deliveryId } = test.json();
      try {
        assert.equal(await worker.deliverDue(), 1);
        for (const wait of RETRY_DELAYS_SECONDS.slice(0, 3)) {
          assert.equal(await worker.deliverDue(), 0, 'nothing before the retry is due');
          server.clock.advance(wait - 1);
          assert.equal(await worker.deliverDue(), 0, `still waiting (${wait} s)`);
          server.clock.advance(1);
          assert.equal(await worker.deliverDue(), 1);
        }
      } finally {
        receiver.respond = () => 200;
      }
      const got = receiver.received.slice(before);
      assert.deepEqual(
        got.map((r) => r.status),
        [503, 503, 503, 200],
      );
      assert.deepEqual(new Set(got.map((r) => r.headers['x-service-event-id'])), new Set([eventId]));
      assert.deepEqual(
        got.map((r) => r.headers['x-service-delivery-attempt']),
        ['1', '2', '3', '4'],
      );
      assert.ok(
        got.every((r) => r.rawBody.equals(got[0]!.rawBody)),
        'the same body every time',
      );
      for (const r of got) {
        assert.equal(
          (
            await verifyWebhook({
              rawBody: r.rawBody,
              headers: r.headers,
              secrets: owner.secret,
              now: Number(r.headers['x-service-timestamp']) * 1000,
            })
          ).ok,
          true,
        );
      }

      const detail = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/${deliveryId}/`, { token: owner.token })
      ).json();
      assert.equal(detail.status, 'succeeded');
      assert.equal(detail.attempts, 4);
      assert.equal(detail.payload.type, 'webhook.test');
      assert.deepEqual(
        detail.attempt_log.map((a: { attempt: number; status_code: number; success: boolean }) => [
          a.attempt,
          a.status_code,
          a.success,
        ]),
        [
          [1, 503, false],
          [2, 503, false],
          [3, 503, false],
          [4, 200, true],
        ],
      );
      assert.match(detail.attempt_log[0].error, /^HTTP 503/);
      const failures = (
        await server.request('GET', `${LEGACY}/webhook/attempts/?success=false&event_type=webhook.test`, {
          token: owner.token,
        })
      ).json();
      assert.equal(failures.items.length, 3);
      assert.ok(failures.items[0].finished_at >= failures.items[2].finished_at, 'newest first');
    });

    test('410 Gone disables the endpoint with a visible reason; nothing more is sent until it is saved again', async () => {
      const owner = await account();
      const before = receiver.received.length;
      receiver.respond = () => 410;
      try {
        // Three events of one envelope: the later ones wait for the first, which is answered 410.
        const draft = await makeDraft(server, owner.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] });
        await sendDraft(server, owner.key, draft);
        const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: owner.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        });
        await server.request('GET', `${API}/signing/${session.json().signing_url.split('/sign/')[1]}`);
        assert.equal(await worker.deliverDue(), 1);
      } finally {
        receiver.respond = () => 200;
      }
      assert.equal(receiver.received.length - before, 1, 'the second event was not sent after the 410');
      const endpoint = (await server.request('GET', `${LEGACY}/webhook/`, { token: owner.token })).json();
      assert.equal(endpoint.status, 'disabled');
      assert.match(endpoint.disabled_reason, /410 Gone/);
      const refused = await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'webhook_disabled');
      const paused = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/?status=paused`, { token: owner.token })
      ).json();
      assert.deepEqual(
        paused.items.map((d: { event_type: string }) => d.event_type).sort(),
        ['envelope.created', 'envelope.sent', 'recipient.viewed'],
        'the 410 delivery and the ones queued behind it are paused',
      );
      // An envelope event while disabled is not queued for it.
      const other = await makeDraft(server, owner.key, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] });
      await sendDraft(server, owner.key, other);
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/deliveries/`, { token: owner.token })).json().items.length,
        3,
      );
      server.clock.advance(7 * 86_400);
      assert.equal(await worker.deliverDue(), 0);
      assert.equal(receiver.received.length - before, 1);
      owner.token = await server.login(owner.email, owner.password); // the clock moved past the token's life

      const saved = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(saved.json().status, 'active');
      assert.equal(saved.json().disabled_reason, null);
      assert.equal(await worker.deliverDue(), 3, 'the paused deliveries resume');
      assert.equal(receiver.received.length - before, 4);
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/deliveries/?status=succeeded`, { token: owner.token })).json()
          .items.length,
        3,
      );
    });

    test('rotation: during the overlap both secrets sign (and verify); after it only the new one', async () => {
      const owner = await account();
      const rotated = await server.request('POST', `${LEGACY}/webhook/secret/rotate/`, { token: owner.token });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const fresh = rotated.json().webhook_secret as string;
      assert.notEqual(fresh, owner.secret);
      assert.equal(
        new Date(rotated.json().previous_secret_expires_at).getTime() - server.clock.now().getTime() > 23.9 * 3_600_000,
        true,
        'default overlap 24 h',
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/secret/`, { token: owner.token })).json().webhook_secret,
        fresh,
        'reveal shows the new secret',
      );

      const deliverOne = async () => {
        const before = receiver.received.length;
        await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
        await worker.deliverDue();
        assert.equal(receiver.received.length, before + 1);
        return receiver.received.at(-1)!;
      };
      const during = await deliverOne();
      assert.equal(String(during.headers['x-service-signature']).split(',').length, 2);
      const now = server.clock.now();
      for (const secret of [owner.secret, fresh]) {
        assert.equal(
          (await verifyWebhook({ rawBody: during.rawBody, headers: during.headers, secrets: secret, now })).ok,
          true,
        );
        assert.equal(plainVerify(during, secret, Math.floor(now.getTime() / 1000)), true);
      }

      server.clock.advance(24 * 3600 + 60);
      owner.token = await server.login(owner.email, owner.password);
      const afterwards = await deliverOne();
      assert.equal(String(afterwards.headers['x-service-signature']).split(',').length, 1);
      const later = server.clock.now();
      assert.equal(
        (await verifyWebhook({ rawBody: afterwards.rawBody, headers: afterwards.headers, secrets: fresh, now: later }))
          .ok,
        true,
      );
      const old = await verifyWebhook({
        rawBody: afterwards.rawBody,
        headers: afterwards.headers,
        secrets: owner.secret,
        now: later,
      });
      assert.equal(!old.ok && old.reason, 'bad_signature');
      assert.equal(plainVerify(afterwards, owner.secret, Math.floor(later.getTime() / 1000)), false);
    });

    test('a receiver that never answers 2xx: 12 attempts on the schedule, then a visible dead letter that can be redelivered', async () => {
      const owner = await account();
      receiver.respond = () => 500;
      let total = 0;
      try {
        const { delivery_id: deliveryId } = (
          await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token })
        ).json();
        total += await worker.deliverDue();
        for (const wait of RETRY_DELAYS_SECONDS) {
          server.clock.advance(wait);
          total += await worker.deliverDue();
        }
        assert.equal(total, MAX_ATTEMPTS);
        server.clock.advance(7 * 86_400);
        assert.equal(await worker.deliverDue(), 0, 'no attempt after the last');
        owner.token = await server.login(owner.email, owner.password);
        const dead = (
          await server.request('GET', `${LEGACY}/webhook/deliveries/?status=dead`, { token: owner.token })
        ).json();
        assert.deepEqual(
          dead.items.map((d: { id: string }) => d.id),
          [deliveryId],
        );
        assert.equal(dead.items[0].attempts, MAX_ATTEMPTS);
        assert.equal(dead.items[0].last_status_code, 500);
        assert.equal(dead.items[0].success, false);

        receiver.respond = () => 200;
        const again = await server.request('POST', `${LEGACY}/webhook/deliveries/${deliveryId}/redeliver/`, {
          token: owner.token,
        });
        assert.equal(again.statusCode, 202, again.body);
        assert.equal(again.json().status, 'pending');
        assert.equal(await worker.deliverDue(), 1);
        const detail = (
          await server.request('GET', `${LEGACY}/webhook/deliveries/${deliveryId}/`, { token: owner.token })
        ).json();
        assert.equal(detail.status, 'succeeded');
        assert.equal(detail.attempts, MAX_ATTEMPTS + 1);
      } finally {
        receiver.respond = () => 200;
      }
    });

    test('portal API: endpoint view, paging and filters, errors', async () => {
      const owner = await account();
      const view = (await server.request('GET', `${LEGACY}/webhook/`, { token: owner.token })).json();
      assert.equal(view.webhook_url, receiver.url);
      assert.equal(view.status, 'active');
      assert.equal('webhook_secret' in view, false);
      for (let i = 0; i < 5; i++) {
        await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token });
        server.clock.advance(1);
      }
      await worker.deliverDue();
      const first = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/?limit=2`, { token: owner.token })
      ).json();
      assert.equal(first.items.length, 2);
      const second = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/?limit=2&before=${first.next_before}`, {
          token: owner.token,
        })
      ).json();
      const third = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/?limit=2&before=${second.next_before}`, {
          token: owner.token,
        })
      ).json();
      const ids = [...first.items, ...second.items, ...third.items].map((d: { id: string }) => d.id);
      assert.equal(new Set(ids).size, 5);
      assert.equal(third.next_before, null);
      const created = [...first.items, ...second.items, ...third.items].map(
        (d: { created_at: string }) => d.created_at,
      );
      assert.deepEqual(created, [...created].sort().reverse(), 'newest first');
      assert.equal(
        (
          await server.request('GET', `${LEGACY}/webhook/deliveries/?success=true&event_type=webhook.test`, {
            token: owner.token,
          })
        ).json().items.length,
        5,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/deliveries/?success=false`, { token: owner.token })).json()
          .items.length,
        0,
      );
      assert.equal(
        (
          await server.request('GET', `${LEGACY}/webhook/deliveries/?event_type=envelope.completed`, {
            token: owner.token,
          })
        ).json().items.length,
        0,
      );

      const stranger = await server.newAccount();
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/deliveries/${ids[0]}/`, { token: stranger.token })).json().code,
        'webhook_delivery_not_found',
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/`, { token: stranger.token })).json().code,
        'webhook_not_registered',
      );
      assert.equal(
        (await server.request('POST', `${LEGACY}/webhook/test/`, { token: stranger.token })).statusCode,
        404,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/deliveries/`, { token: stranger.token })).json().items.length,
        0,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/secret/`, { key: owner.key })).statusCode,
        401,
        'Bearer only, not the API key',
      );
      assert.equal(
        (await server.request('POST', `${LEGACY}/webhook/save/`, { json: { webhook_url: receiver.url } })).statusCode,
        401,
      );
    });
  });
}
