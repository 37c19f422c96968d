/**
 * Issue 16 point 13. A refresh token is used once: presenting one that was already rotated means two parties
 * hold the login (a stolen cookie or token), so every token descended from that login is revoked and the
 * legitimate holder must log in again. Logins of a suspended account are refused with account_suspended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setSuspended } from '../../../server/domain/accounts/account-admin.js';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';

const CONSOLE = { 'x-mohar-console': '1' };

function cookieValue(setCookie: string | string[] | undefined): string {
  const match = /mohar_console=([^;]*)/.exec(Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? ''));
  assert.ok(match, 'a mohar_console cookie');
  return match[1]!;
}

for (const kind of DATABASES) {
  describe(`refresh token families on ${kind}`, () => {
    const t = useTestServer(kind);

    const login = (email: string, password: string) =>
      t.server.request('POST', `${LEGACY}/auth/login/`, { json: { email, password } });
    const refresh = (token: string) =>
      t.server.request('POST', `${LEGACY}/auth/refresh/`, { json: { refresh_token: token } });
    const envelopes = (access: string) => t.server.request('GET', `${API}/envelopes`, { token: access });

    test('legacy refresh: replaying a rotated token revokes the whole family; other logins are untouched', async () => {
      const first = (await login(t.account.email, t.account.password)).json();
      const other = (await login(t.account.email, t.account.password)).json();
      const second = (await refresh(first.refresh_token)).json();
      const third = await refresh(second.refresh_token);
      assert.equal(third.statusCode, 200, third.body);
      const legit = third.json();
      assert.equal((await envelopes(legit.access_token)).statusCode, 200);

      const replay = await refresh(first.refresh_token);
      assert.equal(replay.statusCode, 401);
      assert.equal(replay.json().code, 'invalid_token');
      // Every descendant of that login is now dead: the holder's refresh and access tokens too.
      assert.equal((await refresh(legit.refresh_token)).statusCode, 401, 'the legitimate holder must log in again');
      assert.equal((await envelopes(legit.access_token)).statusCode, 401);
      // A different login of the same user is another family.
      assert.equal((await envelopes(other.access_token)).statusCode, 200);
      assert.equal((await refresh(other.refresh_token)).statusCode, 200);
    });

    test('two refreshes racing with one token: one wins, and the family ends (the loser is a second holder)', async () => {
      const pair = (await login(t.account.email, t.account.password)).json();
      const [a, b] = await Promise.all([refresh(pair.refresh_token), refresh(pair.refresh_token)]);
      assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 401]);
      const winner = (a.statusCode === 200 ? a : b).json();
      assert.equal((await refresh(winner.refresh_token)).statusCode, 401);
    });

    test('console session: a replayed cookie revokes the session that rotated from it', async () => {
      const started = await t.server.request('POST', `${LEGACY}/auth/session/`, {
        headers: CONSOLE,
        json: { email: t.account.email, password: t.account.password },
      });
      assert.equal(started.statusCode, 200, started.body);
      const stolen = cookieValue(started.headers['set-cookie']);
      const resumed = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${stolen}` },
      });
      assert.equal(resumed.statusCode, 200, resumed.body);
      const current = cookieValue(resumed.headers['set-cookie']);
      const access = resumed.json().access_token as string;

      const replay = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${stolen}` },
      });
      assert.equal(replay.statusCode, 401);
      assert.equal((await envelopes(access)).statusCode, 401, 'the live access token of the family is revoked');
      const next = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${current}` },
      });
      assert.equal(next.statusCode, 401, 'the holder of the current cookie must log in again');
    });

    test('a suspended account: logins refused with account_suspended, its live tokens do nothing, resume restores', async () => {
      const account = await t.server.newAccount();
      const before = (await login(account.email, account.password)).json();
      await setSuspended(t.server.ctx, account.accountId, true);

      const refused = await login(account.email, account.password);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'account_suspended');
      const wrong = await login(account.email, 'not the password');
      assert.equal(wrong.statusCode, 401, 'a wrong password says nothing about the account');
      const consoleLogin = await t.server.request('POST', `${LEGACY}/auth/session/`, {
        headers: CONSOLE,
        json: { email: account.email, password: account.password },
      });
      assert.equal(consoleLogin.statusCode, 403);
      assert.equal(consoleLogin.json().code, 'account_suspended');
      const refreshed = await refresh(before.refresh_token);
      assert.equal(refreshed.statusCode, 403);
      assert.equal(refreshed.json().code, 'account_suspended');
      const settings = await t.server.request('GET', `${LEGACY}/account/settings/`, { token: before.access_token });
      assert.equal(settings.statusCode, 403, 'admin routes refuse the tokens of a suspended account');
      assert.equal(settings.json().code, 'account_suspended');

      await setSuspended(t.server.ctx, account.accountId, false);
      assert.equal((await login(account.email, account.password)).statusCode, 200);
      assert.equal((await refresh(before.refresh_token)).statusCode, 200, 'a refused refresh did not use the token up');
    });
  });
}
