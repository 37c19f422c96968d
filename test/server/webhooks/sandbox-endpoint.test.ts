/**
 * The domain API the sandbox uses (server/domain/webhooks/sandbox-endpoint.ts): a one-off endpoint with its
 * own secret, bound to one envelope, receives exactly that envelope's envelope.completed, even when the
 * account has no webhook of its own; and recordEndpointEvent (server/webhooks/endpoint-events.ts) for events
 * outside an envelope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';
import { recordEndpointEvent } from '../../../server/webhooks/endpoint-events.js';
import { bindEnvelopeEvents, createSandboxEndpoint } from '../../../server/domain/webhooks/sandbox-endpoint.js';
import { verifyWebhook } from '../../../server/webhooks/verify.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { startReceiver, type TestReceiver } from './receiver.js';

for (const kind of DATABASES) {
  describe(`sandbox endpoints on ${kind}`, () => {
    let server: TestServer;
    let sandbox: TestReceiver;
    let registered: TestReceiver;
    let worker: WebhookWorker;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      sandbox = await startReceiver();
      registered = await startReceiver();
      worker = new WebhookWorker(server.ctx, { listen: false });
    });
    after(async () => {
      await sandbox?.close();
      await registered?.close();
      await server?.close();
    });

    async function signAll(key: string, draft: { id: string; recipientIds: string[] }) {
      for (const recipientId of draft.recipientIds) {
        const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        });
        const signed = await server.request('POST', `${API}/signing/${session.json().signing_url.split('/sign/')[1]}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'ok' } },
        });
        assert.equal(signed.statusCode, 200, signed.body);
      }
      await server.runJobs();
    }

    test('exactly one envelope.completed to the bound endpoint, signed with its own secret, with no account webhook', async () => {
      const owner = await server.newAccount();
      const draft = await makeDraft(server, owner.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] });
      const endpoint = await server.ctx.db.transaction().execute(async (trx) => {
        const created = await createSandboxEndpoint(server.ctx, trx, { accountId: owner.accountId, url: sandbox.url });
        await bindEnvelopeEvents(trx, {
          envelopeId: draft.id,
          endpointId: created.endpointId,
          at: server.clock.now().toISOString(),
        });
        return created;
      });
      assert.match(endpoint.secret, /^whsec_/);
      await sendDraft(server, owner.key, draft);
      await signAll(owner.key, draft);
      await worker.deliverDue();
      assert.equal(sandbox.received.length, 1);
      const got = sandbox.received[0]!;
      const verified = await verifyWebhook({
        rawBody: got.rawBody,
        headers: got.headers,
        secrets: endpoint.secret,
        now: server.clock.now(),
      });
      assert.equal(verified.ok, true);
      assert.equal(verified.ok && verified.event.type, 'envelope.completed');
      assert.equal(verified.ok && (verified.event.data.envelope as { id: string }).id, draft.id);
      // Not the account's webhook: the account still has none, and its portal lists the delivery.
      assert.equal((await server.request('GET', `${LEGACY}/webhook/`, { token: owner.token })).statusCode, 404);
      const listed = (await server.request('GET', `${LEGACY}/webhook/deliveries/`, { token: owner.token })).json();
      assert.deepEqual(
        listed.items.map((d: { event_type: string; webhook_url: string }) => [d.event_type, d.webhook_url]),
        [['envelope.completed', sandbox.url]],
      );
    });

    test('with an account webhook too: the account gets every event, the sandbox endpoint only its envelope.completed', async () => {
      const owner = await server.newAccount();
      await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: registered.url },
      });
      const before = sandbox.received.length;
      const draft = await makeDraft(server, owner.key, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] });
      const other = await makeDraft(server, owner.key, { recipients: [{ name: 'Kiran', email: 'kiran@example.com' }] });
      await server.ctx.db.transaction().execute(async (trx) => {
        const created = await createSandboxEndpoint(server.ctx, trx, { accountId: owner.accountId, url: sandbox.url });
        await bindEnvelopeEvents(trx, {
          envelopeId: draft.id,
          endpointId: created.endpointId,
          at: server.clock.now().toISOString(),
        });
      });
      for (const d of [draft, other]) {
        await sendDraft(server, owner.key, d);
        await signAll(owner.key, d);
      }
      await worker.deliverDue();
      assert.deepEqual(
        sandbox.received.slice(before).map((r) => JSON.parse(r.rawBody.toString()).type),
        ['envelope.completed'],
      );
      const types = registered.received.map((r) => JSON.parse(r.rawBody.toString()).type as string);
      assert.equal(types.filter((t) => t === 'envelope.completed').length, 2);
      assert.ok(types.includes('envelope.sent') && types.includes('recipient.signed'));
    });

    test('an event outside any envelope to one endpoint; a bad sandbox URL is refused like a webhook URL', async () => {
      const owner = await server.newAccount();
      const before = sandbox.received.length;
      const event = await server.ctx.db.transaction().execute(async (trx) => {
        const created = await createSandboxEndpoint(server.ctx, trx, { accountId: owner.accountId, url: sandbox.url });
        return recordEndpointEvent(trx, {
          endpointId: created.endpointId,
          accountId: owner.accountId,
          type: 'envelope.completed',
          data: { envelope: { id: 'mock' } },
          at: server.clock.now().toISOString(),
        });
      });
      await worker.deliverDue();
      assert.equal(sandbox.received.length, before + 1);
      assert.equal(sandbox.received.at(-1)!.headers['x-service-event-id'], event.eventId);
      assert.deepEqual(JSON.parse(sandbox.received.at(-1)!.rawBody.toString()), event.payload);

      const strict = await startTestServer(kind);
      try {
        await assert.rejects(
          strict.ctx.db
            .transaction()
            .execute((trx) =>
              createSandboxEndpoint(strict.ctx, trx, { accountId: owner.accountId, url: 'https://127.0.0.1/hook' }),
            ),
          (error: unknown) => isMoharError(error, 'invalid_webhook_url'),
        );
      } finally {
        await strict.close();
      }
    });
  });
}
