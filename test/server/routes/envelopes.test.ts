import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { API, useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`envelope drafts on ${kind}`, () => {
    const t = useTestServer(kind);

    const create = (json: unknown, headers: Record<string, string> = {}) =>
      t.server.request('POST', `${API}/envelopes`, { key: t.account.key, json, headers });

    test('creates a draft with documented defaults', async () => {
      const response = await create({
        title: 'NDA',
        recipients: [
          { name: 'Asha', email: 'Asha@Example.com' },
          { name: 'Ravi', email: 'ravi@example.com', role: 'approver' },
        ],
      });
      assert.equal(response.statusCode, 201);
      const envelope = response.json();
      assert.match(envelope.id, /^[0-9a-f-]{36}$/);
      assert.equal(envelope.status, 'draft');
      assert.equal(envelope.routing_order, 'sequential');
      assert.deepEqual(envelope.documents, []);
      assert.equal(envelope.external_id, null);
      const [asha, ravi] = envelope.recipients;
      assert.deepEqual(
        { ...asha, recipient_id: undefined },
        {
          recipient_id: undefined,
          name: 'Asha',
          email: 'asha@example.com',
          role: 'signer',
          signature_method: 'electronic',
          sequence: 1,
          status: 'created',
        },
      );
      assert.equal(ravi.role, 'approver');
      assert.equal(ravi.signature_method, 'review');
      assert.equal(ravi.sequence, 2, 'sequential routing follows list order');
      assert.ok(envelope.created_at && envelope.updated_at);
    });

    test('keeps every field of the request', async () => {
      const json = {
        title: 'Lease',
        external_id: 'lease-42',
        routing_order: 'parallel',
        message: 'Please sign',
        expire_in_days: 7,
        redirect_url: 'https://example.com/done',
        metadata: { deal: 42, tags: ['a'] },
        recipients: [{ name: 'A', email: 'a@example.com', signature_method: 'dsc', sequence: 3 }],
      };
      const envelope = (await create(json)).json();
      for (const key of [
        'title',
        'external_id',
        'routing_order',
        'message',
        'expire_in_days',
        'redirect_url',
        'metadata',
      ] as const) {
        assert.deepEqual(envelope[key], json[key]);
      }
      assert.equal(envelope.recipients[0].sequence, 3);
      assert.equal(envelope.recipients[0].signature_method, 'dsc');
      const fetched = await t.server.request('GET', `${API}/envelopes/${envelope.id}`, { key: t.account.key });
      assert.equal(fetched.statusCode, 200);
      assert.deepEqual(fetched.json(), envelope);
    });

    test('validation errors name every bad field', async () => {
      const response = await create({
        title: '',
        expire_in_days: 0,
        routing_order: 'random',
        redirect_url: 'not a url',
        recipients: [{ name: 'x', email: 'not-an-email', sequence: 0 }],
      });
      assert.equal(response.statusCode, 422);
      const problem = response.json();
      assert.equal(problem.code, 'validation_failed');
      const paths = problem.errors.map((e: { path: string }) => e.path).join(' ');
      for (const path of [
        '/title',
        '/expire_in_days',
        '/routing_order',
        '/redirect_url',
        '/recipients/0/email',
        '/recipients/0/sequence',
      ]) {
        assert.ok(paths.includes(path), `${path} reported in ${paths}`);
      }
    });

    test('a missing title and malformed JSON are clear errors', async () => {
      const missing = await create({});
      assert.equal(missing.statusCode, 422);
      assert.match(missing.json().errors[0].path, /title/);
      const broken = await t.server.app.inject({
        method: 'POST',
        url: `${API}/envelopes`,
        headers: { 'x-api-key': t.account.key, 'content-type': 'application/json' },
        payload: '{"title": ',
      });
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.json().code, 'malformed_json');
    });

    test('signers cannot use review; reviewers cannot sign by DSC', async () => {
      assert.equal(
        (await create({ title: 'x', recipients: [{ name: 'a', email: 'a@example.com', signature_method: 'review' }] }))
          .statusCode,
        422,
      );
      assert.equal(
        (
          await create({
            title: 'x',
            recipients: [{ name: 'a', email: 'a@example.com', role: 'reviewer', signature_method: 'dsc' }],
          })
        ).statusCode,
        422,
      );
    });

    test('external_id is unique per account, not across accounts', async () => {
      assert.equal((await create({ title: 'one', external_id: 'dup-1' })).statusCode, 201);
      const second = await create({ title: 'two', external_id: 'dup-1' });
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().code, 'external_id_conflict');
      const other = await t.server.newAccount();
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes`, {
            key: other.key,
            json: { title: 'three', external_id: 'dup-1' },
          })
        ).statusCode,
        201,
      );
    });

    test('status lists the envelope and recipient states', async () => {
      const envelope = (await create({ title: 'status', recipients: [{ name: 'A', email: 'a@example.com' }] })).json();
      const response = await t.server.request('GET', `${API}/envelopes/${envelope.id}/status`, { key: t.account.key });
      assert.equal(response.statusCode, 200);
      const status = response.json();
      assert.equal(status.envelope_id, envelope.id);
      assert.equal(status.status, 'draft');
      assert.deepEqual(status.recipients, envelope.recipients);
    });

    test('recipients can be added to a draft; DSC signers are limited to one', async () => {
      const envelope = (
        await create({
          title: 'add',
          routing_order: 'sequential',
          recipients: [{ name: 'A', email: 'a@example.com', signature_method: 'dsc' }],
        })
      ).json();
      const added = await t.server.request('POST', `${API}/envelopes/${envelope.id}/recipients`, {
        key: t.account.key,
        json: { name: 'B', email: 'b@example.com', role: 'cc' },
      });
      assert.equal(added.statusCode, 201);
      assert.equal(added.json().role, 'cc');
      assert.equal(added.json().sequence, 2);
      const second = await t.server.request('POST', `${API}/envelopes/${envelope.id}/recipients`, {
        key: t.account.key,
        json: { name: 'C', email: 'c@example.com', signature_method: 'dsc' },
      });
      assert.equal(second.statusCode, 422);
      assert.equal(second.json().code, 'dsc_single_signer');
      const both = await create({
        title: 'x',
        recipients: [
          { name: 'A', email: 'a@example.com', signature_method: 'dsc' },
          { name: 'B', email: 'b@example.com', signature_method: 'dsc' },
        ],
      });
      assert.equal(both.json().code, 'dsc_single_signer');
      const view = (await t.server.request('GET', `${API}/envelopes/${envelope.id}`, { key: t.account.key })).json();
      assert.equal(view.recipients.length, 2, 'the refused recipient was not added');
    });
  });

  describe(`idempotency on ${kind}`, () => {
    const t = useTestServer(kind);

    const create = (json: unknown, key: string, apiKey = t.account.key) =>
      t.server.request('POST', `${API}/envelopes`, { key: apiKey, json, headers: { 'idempotency-key': key } });
    const count = async () =>
      Number(
        (
          await t.server.ctx.db
            .selectFrom('envelopes')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', t.account.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('same key and body replays the first response with Idempotent-Replayed', async () => {
      const first = await create({ title: 'once', recipients: [{ name: 'A', email: 'a@example.com' }] }, 'key-1');
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const before = await count();
      const again = await create({ recipients: [{ email: 'a@example.com', name: 'A' }], title: 'once' }, 'key-1');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.equal(await count(), before);
    });

    test('same key with a different body is 409 idempotency_conflict', async () => {
      await create({ title: 'a' }, 'key-2');
      const response = await create({ title: 'b' }, 'key-2');
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().code, 'idempotency_conflict');
    });

    test('keys are per account', async () => {
      const other = await t.server.newAccount();
      const mine = await create({ title: 'shared' }, 'key-3');
      const theirs = await create({ title: 'shared' }, 'key-3', other.key);
      assert.equal(theirs.statusCode, 201);
      assert.notEqual(theirs.json().id, mine.json().id);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
    });

    test('keys are kept 24 hours', async () => {
      const first = (await create({ title: 'day' }, 'key-4')).json();
      t.server.clock.advance(23 * 3600);
      assert.equal((await create({ title: 'day' }, 'key-4')).json().id, first.id);
      t.server.clock.advance(2 * 3600);
      const later = await create({ title: 'day' }, 'key-4');
      assert.equal(later.statusCode, 201);
      assert.notEqual(later.json().id, first.id);
    });

    test('a failed first attempt releases the key', async () => {
      await create({ title: 'dup', external_id: 'idem-ext' }, 'key-5a');
      const failed = await create({ title: 'dup', external_id: 'idem-ext' }, 'key-5');
      assert.equal(failed.statusCode, 409);
      assert.equal(failed.json().code, 'external_id_conflict');
      const retry = await create({ title: 'dup', external_id: 'idem-ext-2' }, 'key-5');
      assert.equal(retry.statusCode, 201);
    });

    test('a key still in flight is 409 idempotency_in_progress', async () => {
      await t.server.ctx.db
        .insertInto('idempotency_keys')
        .values({
          account_id: t.account.accountId,
          key: 'key-6',
          request_hash: 'x',
          state: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: t.server.clock.now().toISOString(),
          expires_at: new Date(t.server.clock.now().getTime() + 3_600_000).toISOString(),
        })
        .execute();
      // Fingerprints differ here, so make the stored one match the request first.
      const { requestFingerprint } = await import('../../../server/domain/idempotency/idempotency.js');
      const fingerprint = requestFingerprint('POST', '/backend/api/v1/envelopes', {
        params: {},
        body: { title: 'slow' },
      });
      await t.server.ctx.db
        .updateTable('idempotency_keys')
        .set({ request_hash: fingerprint })
        .where('key', '=', 'key-6')
        .execute();
      const response = await create({ title: 'slow' }, 'key-6');
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().code, 'idempotency_in_progress');
    });

    test('an in-flight key of a dead process (lease lapsed) runs again; a live lease is 409', async () => {
      const { requestFingerprint } = await import('../../../server/domain/idempotency/idempotency.js');
      const now = t.server.clock.now().getTime();
      const inFlight = (key: string, leaseExpiresAt: number, title: string) =>
        t.server.ctx.db
          .insertInto('idempotency_keys')
          .values({
            account_id: t.account.accountId,
            key,
            request_hash: requestFingerprint('POST', '/backend/api/v1/envelopes', { params: {}, body: { title } }),
            state: 'in_flight',
            response_status: null,
            response_body: null,
            created_at: new Date(now - 10_000).toISOString(),
            expires_at: new Date(now + 3_600_000).toISOString(),
            lease_owner: 'crashed-host:1:0000',
            lease_expires_at: new Date(leaseExpiresAt).toISOString(),
          })
          .execute();
      await inFlight('lease-live', now + 5_000, 'leased');
      const live = await create({ title: 'leased' }, 'lease-live');
      assert.equal(live.statusCode, 409);
      assert.equal(live.json().code, 'idempotency_in_progress');

      await inFlight('lease-lapsed', now - 1, 'orphan');
      const before = await count();
      const rerun = await create({ title: 'orphan' }, 'lease-lapsed');
      assert.equal(rerun.statusCode, 201, rerun.body);
      assert.equal(rerun.headers['idempotent-replayed'], undefined, 'a run again, not a replay');
      assert.equal(await count(), before + 1);
      const replay = await create({ title: 'orphan' }, 'lease-lapsed');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, rerun.body);
    });

    test('50 concurrent identical requests create exactly one envelope', async () => {
      const before = await count();
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => create({ title: 'race', external_id: 'race-1' }, 'race-key')),
      );
      assert.equal(await count(), before + 1);
      const created = responses.filter((r) => r.statusCode === 201);
      assert.ok(created.length >= 1);
      assert.ok(
        responses.every(
          (r) => r.statusCode === 201 || (r.statusCode === 409 && r.json().code === 'idempotency_in_progress'),
        ),
        responses.map((r) => r.statusCode).join(','),
      );
      assert.equal(new Set(created.map((r) => r.json().id)).size, 1);
    });

    test('an over-long key is refused', async () => {
      const response = await create({ title: 'x' }, 'k'.repeat(256));
      assert.equal(response.statusCode, 422);
    });
  });
}
