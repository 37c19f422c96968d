/**
 * The office console's session: login sets an HttpOnly, SameSite=Strict refresh cookie and answers an access
 * token that works on the envelope API (not on the key-only legacy calls); refresh rotates the cookie; logout
 * revokes it and every access token it minted; calls without the console header are refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../../support/databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, API, LEGACY, useTestServer } from '../../../support/server.js';

const CONSOLE = { 'x-mohar-console': '1' };

function cookieOf(setCookie: string | string[] | undefined): { value: string; attributes: string } {
  const header = Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? '');
  const match = /mohar_console=([^;]*);?(.*)/.exec(header);
  assert.ok(match, `no mohar_console cookie in ${header}`);
  return { value: match[1]!, attributes: match[2]! };
}

for (const kind of DATABASES) {
  describe(`console session on ${kind}`, () => {
    const t = useTestServer(kind);

    async function logIn() {
      const response = await t.server.request('POST', `${LEGACY}/auth/session/`, {
        headers: CONSOLE,
        json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      assert.equal(response.statusCode, 200, response.body);
      return {
        body: response.json() as { access_token: string; user: { email: string; role: string; account_name: string } },
        cookie: cookieOf(response.headers['set-cookie']),
      };
    }

    test('login: the refresh token only in an HttpOnly SameSite=Strict cookie scoped to the session routes', async () => {
      const { body, cookie } = await logIn();
      assert.equal(body.user.email, ADMIN_EMAIL);
      assert.equal(body.user.role, 'api_admin');
      assert.ok(!('refresh_token' in body));
      assert.match(cookie.attributes, /HttpOnly/i);
      assert.match(cookie.attributes, /SameSite=Strict/i);
      assert.match(cookie.attributes, new RegExp(`Path=${LEGACY}/auth/session/`));
      assert.doesNotMatch(cookie.attributes, /Secure/, 'http base URL: not Secure (it would never be sent back)');
    });

    test('the access token works on the envelope API; the key-only calls still want the key', async () => {
      const { body } = await logIn();
      const created = await t.server.request('POST', `${API}/envelopes`, {
        token: body.access_token,
        json: { title: 'From the console' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const read = await t.server.request('GET', `${API}/envelopes/${created.json().id}`, { key: t.account.key });
      assert.equal(read.statusCode, 404, 'another account: the console user acted for its own account only');
      const sandbox = await t.server.request(
        'GET',
        `${API}/sandbox/mock-dsc/requests/00000000-0000-4000-8000-000000000000`,
        { token: body.access_token },
      );
      assert.equal(sandbox.statusCode, 401);
      assert.equal(sandbox.json().code, 'invalid_api_key');
    });

    test('refresh rotates the cookie; the old cookie stops working; logout revokes the session', async () => {
      const { cookie } = await logIn();
      const refreshed = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${cookie.value}` },
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const next = cookieOf(refreshed.headers['set-cookie']);
      assert.notEqual(next.value, cookie.value);
      const access = refreshed.json().access_token as string;
      assert.equal(
        (await t.server.request('POST', `${API}/envelopes`, { token: access, json: { title: 'x' } })).statusCode,
        201,
      );
      const out = await t.server.request('POST', `${LEGACY}/auth/session/logout/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${next.value}` },
      });
      assert.equal(out.statusCode, 204);
      assert.match(String(out.headers['set-cookie']), /mohar_console=;/);
      assert.equal(
        (await t.server.request('POST', `${API}/envelopes`, { token: access, json: { title: 'x' } })).statusCode,
        401,
        'logout revokes the access token at once',
      );
      assert.equal(
        (
          await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
            headers: { ...CONSOLE, cookie: `mohar_console=${next.value}` },
          })
        ).statusCode,
        401,
      );
      // The old cookie stopped working at the rotation (a replay of it also ends its family: token-family.test.ts).
      const replay = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { ...CONSOLE, cookie: `mohar_console=${cookie.value}` },
      });
      assert.equal(replay.statusCode, 401);
      // No cookie: 204, not a refusal the browser would log on every load of the login page; no cookie is set.
      const none = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, { headers: CONSOLE });
      assert.equal(none.statusCode, 204, none.body);
      assert.equal(none.body, '');
      assert.equal(none.headers['set-cookie'], undefined);
      assert.equal(none.headers['cache-control'], 'no-store');
    });

    test('without the console header: refused (a cross-site form cannot log in, refresh or log out)', async () => {
      const login = await t.server.request('POST', `${LEGACY}/auth/session/`, {
        json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      assert.equal(login.statusCode, 403);
      assert.equal(login.json().code, 'csrf_header_missing');
      assert.equal(login.headers['set-cookie'], undefined);
      const { cookie } = await logIn();
      const refresh = await t.server.request('POST', `${LEGACY}/auth/session/refresh/`, {
        headers: { cookie: `mohar_console=${cookie.value}` },
      });
      assert.equal(refresh.statusCode, 403);
    });

    test('wrong password: 401 and no cookie', async () => {
      const response = await t.server.request('POST', `${LEGACY}/auth/session/`, {
        headers: CONSOLE,
        json: { email: ADMIN_EMAIL, password: 'wrong' },
      });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().code, 'invalid_credentials');
      assert.equal(response.headers['set-cookie'], undefined);
    });
  });
}
