import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`login on ${kind}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(kind);
    });
    after(() => server.close());

    test('the bootstrap api_admin logs in and gets a Bearer token pair', async () => {
      const response = await server.request('POST', `${LEGACY}/auth/login/`, {
        json: { email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD },
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 900);
      assert.match(body.access_token, /^mat_/);
      assert.match(body.refresh_token, /^mrt_/);
    });

    test('a wrong password or unknown e-mail is 401 invalid_credentials as problem+json', async () => {
      for (const json of [
        { email: ADMIN_EMAIL, password: 'wrong password' },
        { email: 'nobody@test.local', password: ADMIN_PASSWORD },
      ]) {
        const response = await server.request('POST', `${LEGACY}/auth/login/`, { json });
        assert.equal(response.statusCode, 401);
        assert.match(response.headers['content-type'] as string, /^application\/problem\+json/);
        assert.equal(response.json().code, 'invalid_credentials');
      }
    });

    test('refresh rotates: the new pair works, the old refresh token does not', async () => {
      const first = (
        await server.request('POST', `${LEGACY}/auth/login/`, {
          json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        })
      ).json();
      const refreshed = await server.request('POST', `${LEGACY}/auth/refresh/`, {
        json: { refresh_token: first.refresh_token },
      });
      assert.equal(refreshed.statusCode, 200);
      const second = refreshed.json();
      assert.notEqual(second.access_token, first.access_token);
      assert.equal(
        (await server.request('GET', `${LEGACY}/apikey/get/`, { token: second.access_token })).statusCode,
        200,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/apikey/get/`, { token: first.access_token })).statusCode,
        401,
        'access tokens of the old refresh token are revoked',
      );
      const again = await server.request('POST', `${LEGACY}/auth/refresh/`, {
        json: { refresh_token: first.refresh_token },
      });
      assert.equal(again.statusCode, 401);
      assert.equal(again.json().code, 'invalid_token');
    });

    test('logout revokes the refresh token and its access token', async () => {
      const pair = (
        await server.request('POST', `${LEGACY}/auth/login/`, {
          json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        })
      ).json();
      assert.equal(
        (await server.request('POST', `${LEGACY}/auth/logout/`, { json: { refresh_token: pair.refresh_token } }))
          .statusCode,
        204,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/apikey/get/`, { token: pair.access_token })).statusCode,
        401,
      );
      assert.equal(
        (await server.request('POST', `${LEGACY}/auth/refresh/`, { json: { refresh_token: pair.refresh_token } }))
          .statusCode,
        401,
      );
    });

    test('access tokens expire after 15 minutes', async () => {
      const token = await server.login();
      server.clock.advance(15 * 60 + 1);
      const response = await server.request('GET', `${LEGACY}/apikey/get/`, { token });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().code, 'invalid_token');
    });

    test('5 failed logins in 15 minutes lock the user for 15 minutes, even with the right password', async () => {
      const account = await server.newAccount();
      const attempt = (password: string) =>
        server.request('POST', `${LEGACY}/auth/login/`, { json: { email: account.email, password } });
      for (let i = 0; i < 4; i++) assert.equal((await attempt('wrong')).statusCode, 401);
      const fifth = await attempt('wrong');
      assert.equal(fifth.statusCode, 429);
      assert.equal(fifth.json().code, 'account_locked');
      assert.ok(Number(fifth.headers['retry-after']) > 14 * 60);
      const locked = await attempt(account.password);
      assert.equal(locked.statusCode, 429);
      assert.ok(Number(locked.headers['retry-after']) > 0);
      server.clock.advance(15 * 60 + 1);
      assert.equal((await attempt(account.password)).statusCode, 200);
    });

    test('failures older than 15 minutes do not count', async () => {
      const account = await server.newAccount();
      const attempt = (password: string) =>
        server.request('POST', `${LEGACY}/auth/login/`, { json: { email: account.email, password } });
      for (let i = 0; i < 4; i++) await attempt('wrong');
      server.clock.advance(16 * 60);
      assert.equal((await attempt('wrong')).statusCode, 401);
    });

    test('account management refuses missing or invalid tokens, and API keys in place of tokens', async () => {
      const account = await server.newAccount();
      for (const options of [
        {},
        { token: 'mat_not-a-token' },
        { headers: { authorization: `Bearer ${account.key}` } },
      ]) {
        const response = await server.request('POST', `${LEGACY}/apikey/generate/`, { ...options, json: {} });
        assert.equal(response.statusCode, 401);
        assert.equal(response.json().code, 'invalid_token');
      }
    });

    test('passwords, tokens and keys never reach the log', async () => {
      const account = await server.newAccount();
      await server.request('POST', `${LEGACY}/auth/login/`, {
        json: { email: account.email, password: account.password },
      });
      await server.request('GET', `${LEGACY}/apikey/get/`, { key: account.key });
      await server.request('GET', `${LEGACY}/apikey/get/`, { token: account.token });
      const log = server.logs.join('');
      assert.ok(log.length > 0, 'requests were logged');
      for (const secret of [account.password, account.key, account.token]) {
        assert.ok(!log.includes(secret), 'secret absent from logs');
      }
    });
  });
}
