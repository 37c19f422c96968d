import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`API keys on ${kind}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(kind);
    });
    after(() => server.close());

    const envelopesWith = (key: string) =>
      server.request('POST', `${API}/envelopes`, { key, json: { title: 'probe' } });

    test('generate returns a qsk_live_ key once; only its SHA-256 is stored', async () => {
      const token = await server.login();
      const response = await server.request('POST', `${LEGACY}/apikey/generate/`, { token });
      assert.equal(response.statusCode, 201);
      const { api_key, api_key_prefix, mode } = response.json();
      assert.match(api_key, /^qsk_live_[A-Za-z0-9_-]{32,}$/);
      assert.ok(api_key.startsWith(api_key_prefix));
      assert.ok(api_key_prefix.length < api_key.length - 20);
      assert.equal(mode, 'live');
      const rows = await server.ctx.db.selectFrom('api_keys').selectAll().execute();
      assert.ok(rows.length > 0);
      assert.ok(
        rows.every((row) => !Object.values(row).some((v) => typeof v === 'string' && v.includes(api_key))),
        'the full key is not stored',
      );
      assert.equal((await envelopesWith(api_key)).statusCode, 201);
    });

    test('generating again rotates: the old key stops working at once', async () => {
      const account = await server.newAccount();
      assert.equal((await envelopesWith(account.key)).statusCode, 201);
      const rotated = (
        await server.request('POST', `${LEGACY}/apikey/generate/`, { token: account.token, json: { mode: 'live' } })
      ).json().api_key;
      const old = await envelopesWith(account.key);
      assert.equal(old.statusCode, 401);
      assert.equal(old.json().code, 'invalid_api_key');
      assert.equal((await envelopesWith(rotated)).statusCode, 201);
    });

    test('test keys only for test-mode accounts', async () => {
      const live = await server.newAccount();
      const refused = await server.request('POST', `${LEGACY}/apikey/generate/`, {
        token: live.token,
        json: { mode: 'test' },
      });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().code, 'test_mode_not_enabled');
      const sandbox = await server.newAccount({ testMode: true });
      assert.match(sandbox.testKey!, /^qsk_test_/);
      assert.equal((await envelopesWith(sandbox.testKey!)).statusCode, 201);
      assert.equal(
        (await envelopesWith(sandbox.key)).statusCode,
        201,
        'one active key per mode: live and test coexist',
      );
    });

    test('a bad mode is a validation error', async () => {
      const account = await server.newAccount();
      const response = await server.request('POST', `${LEGACY}/apikey/generate/`, {
        token: account.token,
        json: { mode: 'prod' },
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().code, 'validation_failed');
    });

    test('get returns metadata and never the key, with the login token or the key itself', async () => {
      const account = await server.newAccount({ testMode: true });
      await envelopesWith(account.key);
      const byToken = await server.request('GET', `${LEGACY}/apikey/get/`, { token: account.token });
      assert.equal(byToken.statusCode, 200);
      const body = byToken.json();
      assert.deepEqual(body.keys.map((k: { mode: string }) => k.mode).sort(), ['live', 'test']);
      assert.ok(account.key.startsWith(body.api_key_prefix));
      const live = body.keys.find((k: { mode: string }) => k.mode === 'live');
      assert.ok(live.created_at);
      assert.ok(live.last_used_at, 'last_used_at is recorded');
      const byKey = await server.request('GET', `${LEGACY}/apikey/get/`, { key: account.testKey! });
      assert.equal(byKey.statusCode, 200);
      assert.equal(byKey.json().keys.length, 1);
      assert.equal(byKey.json().keys[0].mode, 'test');
      for (const text of [byToken.body, byKey.body]) {
        assert.ok(!text.includes(account.key) && !text.includes(account.testKey!));
      }
      assert.equal((await server.request('GET', `${LEGACY}/apikey/get/`, { key: 'qsk_live_unknown' })).statusCode, 401);
      assert.equal((await server.request('GET', `${LEGACY}/apikey/get/`)).statusCode, 401);
    });
  });
}
