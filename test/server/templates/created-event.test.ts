/**
 * envelope.created through the outbox to a real webhook receiver: after an instantiation it names the
 * template and the pinned version; an idempotent replay emits nothing more; a plain POST /envelopes gets
 * one too, without template members.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../../server/webhooks/verify.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { startReceiver, type Received, type TestReceiver } from '../webhooks/receiver.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../../support/templates.js';

interface Delivered {
  id: string;
  type: string;
  sequence: number;
  account_id: string;
  data: { envelope: { id: string; status: string; title: string; template_id?: string; template_version?: number } };
}

const body = (r: Received) => JSON.parse(r.rawBody.toString()) as Delivered;

for (const kind of DATABASES) {
  describe(`envelope.created on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
    let receiver: TestReceiver;
    let secret: string;
    before(async () => {
      receiver = await startReceiver();
      const saved = await t.server.request('POST', `${LEGACY}/webhook/save/`, {
        token: t.account.token,
        json: { webhook_url: receiver.url },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      secret = saved.json().webhook_secret;
    });
    after(() => receiver?.close());

    async function deliver(): Promise<Received[]> {
      const before = receiver.received.length;
      await new WebhookWorker(t.server.ctx, { listen: false }).deliverDue();
      return receiver.received.slice(before);
    }

    test('an instantiated envelope: one envelope.created with template_id and template_version, signed, sequence 1', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      assert.equal(
        (
          await t.server.request('PATCH', `${API}/templates/${id}`, {
            key: t.account.key,
            json: { settings: { message: 'v2' } },
          })
        ).json().version,
        2,
      );
      await deliver(); // template.created, template.updated
      const created = await instantiate(
        t.server,
        t.account.key,
        id,
        { recipients: PEOPLE, title: 'From the template' },
        `created-${kind}`,
      );
      assert.equal(created.statusCode, 201, created.body);
      const replay = await instantiate(
        t.server,
        t.account.key,
        id,
        { recipients: PEOPLE, title: 'From the template' },
        `created-${kind}`,
      );
      assert.equal(replay.headers['idempotent-replayed'], 'true');

      const got = await deliver();
      assert.deepEqual(
        got.map((r) => body(r).type),
        ['envelope.created'],
        'once, the replay emits nothing',
      );
      const [received] = got as [Received];
      const event = body(received);
      assert.equal(received.headers['x-service-event-type'], 'envelope.created');
      assert.equal(
        (
          await verifyWebhook({
            rawBody: received.rawBody,
            headers: received.headers,
            secrets: secret,
            now: t.server.clock.now(),
          })
        ).ok,
        true,
      );
      assert.equal(event.account_id, t.account.accountId);
      assert.equal(event.sequence, 1);
      assert.deepEqual(event.data.envelope, {
        id: created.json().id,
        title: 'From the template',
        status: 'draft',
        external_id: null,
        metadata: null,
        template_id: id,
        template_version: 2,
      });

      // The envelope's later events continue its sequence.
      assert.equal(
        (await t.server.request('POST', `${API}/envelopes/${created.json().id}/send`, { key: t.account.key }))
          .statusCode,
        200,
      );
      const sent = (await deliver()).map(body);
      assert.deepEqual(
        sent.map((e) => [e.type, e.sequence, e.data.envelope.template_version]),
        [['envelope.sent', 2, 2]],
      );
    });

    test('POST /envelopes: envelope.created without template members', async () => {
      const created = await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: { title: 'Plain', recipients: [PEOPLE.seller] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const got = (await deliver()).map(body);
      assert.deepEqual(
        got.map((e) => [e.type, e.sequence, e.data.envelope.id]),
        [['envelope.created', 1, created.json().id]],
      );
      assert.equal('template_id' in got[0]!.data.envelope, false);
      const audit = (
        await t.server.request('GET', `${API}/envelopes/${created.json().id}/audit-trail`, { key: t.account.key })
      ).json();
      assert.equal(audit.events[0].action, 'envelope.created');
      assert.equal(audit.events[0].details.event_id, got[0]!.id, "the trail's first row is the event's");
    });
  });
}
