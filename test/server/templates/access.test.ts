/** Account scoping of every template route (404, nothing changed) and idempotent instantiation under concurrency. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IDEMPOTENCY_TTL_SECONDS } from '../../../server/domain/idempotency/idempotency.js';
import { DATABASES } from '../../support/databases.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../../support/templates.js';

async function counts(db: ReturnType<typeof useTestServer>['server']['ctx']['db']) {
  const count = async (
    table: 'templates' | 'template_versions' | 'template_audit' | 'envelopes' | 'events' | 'idempotency_keys',
  ) =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    templates: await count('templates'),
    versions: await count('template_versions'),
    audit: await count('template_audit'),
    envelopes: await count('envelopes'),
    events: await count('events'),
    keys: await count('idempotency_keys'),
  };
}

for (const kind of DATABASES) {
  describe(`template access on ${kind}`, () => {
    const t = useTestServer(kind);

    test('another account gets 404 template_not_found on every template route, and nothing changes', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const stranger = await t.server.newAccount();
      const before = await counts(t.server.ctx.db);
      const snapshot = (await t.server.request('GET', `${API}/templates/${id}`, { key: t.account.key })).json();
      const calls: [string, string, unknown?, Record<string, string>?][] = [
        ['GET', `/templates/${id}`],
        ['GET', `/templates/${id}?include=documents`],
        ['PATCH', `/templates/${id}`, { name: 'Hijacked' }],
        ['DELETE', `/templates/${id}`],
        ['POST', `/templates/${id}/restore`],
        ['GET', `/templates/${id}/versions`],
        ['GET', `/templates/${id}/versions/1`],
        ['POST', `/templates/${id}/instantiate`, { recipients: PEOPLE }, { 'idempotency-key': 'stranger-1' }],
      ];
      for (const [method, path, json, headers] of calls) {
        const response = await t.server.request(method, `${API}${path}`, {
          key: stranger.key,
          ...(json === undefined ? {} : { json }),
          ...(headers ? { headers } : {}),
        });
        assert.equal(response.statusCode, 404, `${method} ${path}: ${response.body}`);
        assert.equal(response.json().code, 'template_not_found', `${method} ${path}`);
      }
      assert.deepEqual(
        (await t.server.request('GET', `${API}/templates?archived=all`, { key: stranger.key })).json().templates,
        [],
        "the list shows only the account's own",
      );
      const fromOthers = await t.server.request('POST', `${API}/templates`, {
        key: stranger.key,
        json: { source_envelope_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f' },
      });
      assert.equal(fromOthers.json().code, 'envelope_not_found');
      assert.deepEqual(await counts(t.server.ctx.db), before, 'no rows written by the refused calls');
      assert.deepEqual(
        (await t.server.request('GET', `${API}/templates/${id}`, { key: t.account.key })).json(),
        snapshot,
      );
      const noKey = await t.server.request('GET', `${API}/templates/${id}`);
      assert.equal(noKey.statusCode, 401);
    });

    test('20 concurrent instantiations with one Idempotency-Key create one envelope', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const before = await counts(t.server.ctx.db);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          instantiate(t.server, t.account.key, id, { recipients: PEOPLE, title: 'Once' }, `once-${kind}`),
        ),
      );
      // The key is stored with the draft, in its commit: the losers of the race answer from the winner's row.
      for (const r of responses) assert.equal(r.statusCode, 201, r.body);
      const created = responses;
      assert.equal(new Set(created.map((r) => r.json().id)).size, 1, 'every 201 is the same envelope');
      for (const r of responses) assert.equal(r.body, responses[0]!.body, 'every answer is the same, byte for byte');
      assert.equal(
        responses.filter((r) => r.headers['idempotent-replayed'] === 'true').length,
        19,
        'one made it, 19 replayed it',
      );
      const after = await counts(t.server.ctx.db);
      assert.equal(after.envelopes - before.envelopes, 1);
      assert.equal(after.events - before.events, 1, 'one envelope.created');
      assert.equal(after.keys - before.keys, 1);
      const replay = await instantiate(
        t.server,
        t.account.key,
        id,
        { recipients: PEOPLE, title: 'Once' },
        `once-${kind}`,
      );
      assert.equal(replay.json().id, created[0]!.json().id);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    });

    test('a used key answers its replay though the template was archived since; an expired key makes a new envelope', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const body = { recipients: PEOPLE, title: 'Before archiving' };
      const first = await instantiate(t.server, t.account.key, id, body, `archived-${kind}`);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(
        (await t.server.request('DELETE', `${API}/templates/${id}`, { key: t.account.key })).statusCode,
        200,
      );
      const replay = await instantiate(t.server, t.account.key, id, body, `archived-${kind}`);
      assert.equal(replay.statusCode, 201, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().id, first.json().id);
      const other = await instantiate(t.server, t.account.key, id, { ...body, title: 'Other' }, `archived-${kind}`);
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_conflict');
      const fresh = await instantiate(t.server, t.account.key, id, body, `archived-fresh-${kind}`);
      assert.equal(fresh.json().code, 'template_archived');

      const { id: live } = await createSaleTemplate(t.server, t.account.key);
      const made = await instantiate(t.server, t.account.key, live, body, `expiring-${kind}`);
      t.server.clock.advance(IDEMPOTENCY_TTL_SECONDS + 60);
      const again = await instantiate(t.server, t.account.key, live, body, `expiring-${kind}`);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], undefined);
      assert.notEqual(again.json().id, made.json().id, 'the expired key is a new request');
    });
  });
}
