/**
 * Location on the answers that create a resource (http/location.ts): POST /envelopes, POST /templates and
 * instantiate (201), POST /bulk-sends (202). It names a URL that GET answers, and a replayed answer names the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../../support/templates.js';

for (const kind of DATABASES) {
  describe(`Location of created resources on ${kind}`, () => {
    const t = useTestServer(kind);

    test('a created envelope: Location is its URL, GET answers it, a replay names it again', async () => {
      const create = () =>
        t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'Located' },
          headers: { 'idempotency-key': 'located-1' },
        });
      const first = await create();
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers.location, `${API}/envelopes/${first.json().id}`);
      const fetched = await t.server.request('GET', first.headers.location!, { key: t.account.key });
      assert.equal(fetched.statusCode, 200);
      assert.equal(fetched.json().title, 'Located');
      const replay = await create();
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.headers.location, first.headers.location);
    });

    test('a created template and an instantiated envelope: Location names each', async () => {
      const source = await makeDraft(t.server, t.account.key, { recipients: [PEOPLE.seller] });
      const fromEnvelope = await t.server.request('POST', `${API}/templates`, {
        key: t.account.key,
        json: { source_envelope_id: source.id, name: 'Located template' },
      });
      assert.equal(fromEnvelope.statusCode, 201, fromEnvelope.body);
      assert.equal(fromEnvelope.headers.location, `${API}/templates/${fromEnvelope.json().template_id}`);
      const got = await t.server.request('GET', fromEnvelope.headers.location!, { key: t.account.key });
      assert.equal(got.statusCode, 200);
      assert.equal(got.json().name, 'Located template');

      const template = await createSaleTemplate(t.server, t.account.key);
      const made = await instantiate(t.server, t.account.key, template.id, { recipients: PEOPLE }, 'located-2');
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(made.headers.location, `${API}/envelopes/${made.json().id}`);
      const replay = await instantiate(t.server, t.account.key, template.id, { recipients: PEOPLE }, 'located-2');
      assert.equal(replay.headers.location, made.headers.location);
    });
  });
}
