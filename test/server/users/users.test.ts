/** Issue 15: users and roles of an account, set-password links, own password, reset, audit log, role checks. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { unlockUser } from '../../../server/domain/users/unlock.js';
import { DATABASES } from '../../support/databases.js';
import { ADMIN_EMAIL, API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'a long enough passphrase';

for (const kind of DATABASES) {
  describe(`users and roles on ${kind}`, () => {
    let server: TestServer;
    let apiAdmin: string;
    let admin: string;
    let adminEmail: string;

    /** The last link mailed to `email` through the outbox (the mail is queued in the same transaction). */
    async function linkMailedTo(email: string): Promise<string> {
      const mail = await server.ctx.db
        .selectFrom('outbox_mail')
        .select(['text', 'subject'])
        .where('to_address', '=', email)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      const url = /(http\S+\/app\/set-password\?token=(\S+))/.exec(mail.text);
      assert.ok(url, mail.text);
      return decodeURIComponent(url[2]!);
    }
    const invite = (token: string, email: string, role: string) =>
      server.request('POST', `${LEGACY}/users/`, { token, json: { email, role } });
    const setPassword = (token: string, password = PASSWORD) =>
      server.request('POST', `${LEGACY}/users/set-password/`, { json: { token, password } });
    const fresh = (name: string) => `${name}-${randomBytes(3).toString('hex')}@test.local`;

    async function newUser(role: string): Promise<{ email: string; id: string; token: string }> {
      const email = fresh(role);
      const invited = await invite(admin, email, role);
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal((await setPassword(await linkMailedTo(email))).statusCode, 200);
      return { email, id: invited.json().id, token: await server.login(email, PASSWORD) };
    }

    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      apiAdmin = await server.login();
      // The bootstrap api_admin may invite the first admin (the account has none yet).
      adminEmail = fresh('admin');
      const invited = await invite(apiAdmin, adminEmail, 'admin');
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal((await setPassword(await linkMailedTo(adminEmail))).statusCode, 200);
      admin = await server.login(adminEmail, PASSWORD);
    });
    after(() => server.close());

    test('once an admin exists, the api_admin keeps account management but not users or the audit log', async () => {
      for (const url of [`${LEGACY}/users/`, `${LEGACY}/audit-log/`]) {
        const response = await server.request('GET', url, { token: apiAdmin });
        assert.equal(response.statusCode, 403);
        assert.equal(response.json().code, 'insufficient_role');
      }
      assert.equal((await server.request('GET', `${LEGACY}/apikey/get/`, { token: apiAdmin })).statusCode, 200);
      assert.equal(
        (await server.request('GET', `${LEGACY}/apikey/get/`, { token: admin })).statusCode,
        200,
        'an admin manages keys too',
      );
    });

    test('an invite mails a single-use set-password link; the user is invited, then active', async () => {
      const email = fresh('Sender').toUpperCase();
      const invited = await invite(admin, email, 'sender');
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal(invited.json().status, 'invited');
      assert.equal(invited.json().email, email.toLowerCase());
      const link = await linkMailedTo(email.toLowerCase());
      const stored = await server.ctx.db
        .selectFrom('user_tokens')
        .select('token_hash')
        .where('user_id', '=', invited.json().id)
        .execute();
      assert.ok(
        stored.every((row) => row.token_hash !== link && !row.token_hash.includes(link)),
        'only a hash is stored',
      );
      // No login before the password is set.
      assert.equal(
        (await server.request('POST', `${LEGACY}/auth/login/`, { json: { email, password: '!' } })).statusCode,
        401,
      );
      assert.equal(
        (await setPassword(link, 'short')).json().code,
        'validation_failed',
        'the password policy of mohar admin create',
      );
      const set = await setPassword(link);
      assert.equal(set.statusCode, 200);
      assert.equal(set.json().email, email.toLowerCase());
      const again = await setPassword(link, 'another long passphrase');
      assert.equal(again.statusCode, 410);
      assert.equal(again.json().code, 'invalid_link');
      await server.login(email, PASSWORD);
      const users = (await server.request('GET', `${LEGACY}/users/`, { token: admin })).json().items as {
        email: string;
        status: string;
        last_login_at: string | null;
      }[];
      const row = users.find((u) => u.email === email.toLowerCase())!;
      assert.equal(row.status, 'active');
      assert.ok(row.last_login_at);
      assert.equal((await invite(admin, email, 'sender')).json().code, 'user_exists');
    });

    test('an invite link expires after 72 hours', async () => {
      const email = fresh('late');
      await invite(admin, email, 'sender');
      const link = await linkMailedTo(email);
      server.clock.advance(72 * 3600 + 1);
      const response = await setPassword(link);
      assert.equal(response.statusCode, 410);
      assert.equal(response.json().code, 'invalid_link');
      admin = await server.login(adminEmail, PASSWORD);
    });

    test('a sender works with envelopes but gets 403 insufficient_role on every account-management route', async () => {
      const sender = await newUser('sender');
      assert.equal((await server.request('GET', `${API}/envelopes`, { token: sender.token })).statusCode, 200);
      const spec = (await server.request('GET', `${LEGACY}/openapi.json`)).json() as {
        paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
      };
      const own = new Set(['post /users/me/password/']);
      const checked: string[] = [];
      for (const [path, methods] of Object.entries(spec.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          if (!operation.security?.some((s) => 'bearer' in s) || own.has(`${method} ${path}`)) continue;
          const url = LEGACY + path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
          const response = await server.request(method.toUpperCase(), url, { token: sender.token, json: {} });
          assert.equal(response.statusCode, 403, `${method} ${path}: ${response.body}`);
          assert.equal(response.json().code, 'insufficient_role');
          checked.push(`${method} ${path}`);
        }
      }
      for (const route of [
        'post /apikey/generate/',
        'get /apikey/get/',
        'post /webhook/save/',
        'get /account/settings/',
        'get /mail/outbox/',
        'get /users/',
        'post /users/',
        'get /audit-log/',
      ]) {
        assert.ok(checked.includes(route), `${route} was checked (${checked.length} routes)`);
      }
    });

    test('role changes; the last active admin cannot be demoted or deactivated', async () => {
      const user = await newUser('sender');
      const changed = await server.request('PATCH', `${LEGACY}/users/${user.id}/`, {
        token: admin,
        json: { role: 'api_admin' },
      });
      assert.equal(changed.statusCode, 200);
      assert.equal(changed.json().role, 'api_admin');
      assert.equal(
        (await server.request('GET', `${LEGACY}/apikey/get/`, { token: user.token })).statusCode,
        200,
        'the new role applies to the live token',
      );
      const me = (await server.request('GET', `${LEGACY}/users/`, { token: admin }))
        .json()
        .items.find((u: { email: string }) => u.email === adminEmail);
      for (const [method, url, json] of [
        ['PATCH', `${LEGACY}/users/${me.id}/`, { role: 'sender' }],
        ['POST', `${LEGACY}/users/${me.id}/deactivate/`, undefined],
      ] as const) {
        const response = await server.request(method, url, { token: admin, ...(json ? { json } : {}) });
        assert.equal(response.statusCode, 409, response.body);
        assert.equal(response.json().code, 'last_admin');
      }
      assert.equal(
        (
          await server.request('PATCH', `${LEGACY}/users/00000000-0000-4000-8000-000000000000/`, {
            token: admin,
            json: { role: 'admin' },
          })
        ).json().code,
        'user_not_found',
      );
      assert.equal(
        (await server.request('PATCH', `${LEGACY}/users/${user.id}/`, { token: admin, json: { role: 'owner' } }))
          .statusCode,
        422,
      );
    });

    test('two admins demoting each other at once: one succeeds, the account keeps an admin', async () => {
      const other = await server.newAccount();
      const admins: { id: string; token: string }[] = [];
      for (const name of ['first', 'second']) {
        const email = fresh(name);
        // The api_admin invites the first admin; that admin the second.
        const invited = await invite(admins[0]?.token ?? other.token, email, 'admin');
        assert.equal(invited.statusCode, 201, invited.body);
        await setPassword(await linkMailedTo(email));
        admins.push({ id: invited.json().id, token: await server.login(email, PASSWORD) });
      }
      const [a, b] = admins as [{ id: string; token: string }, { id: string; token: string }];
      const answers = await Promise.all([
        server.request('PATCH', `${LEGACY}/users/${b.id}/`, { token: a.token, json: { role: 'sender' } }),
        server.request('PATCH', `${LEGACY}/users/${a.id}/`, { token: b.token, json: { role: 'sender' } }),
      ]);
      // The loser is refused by the guard (409 last_admin), or, if the winner committed before its role was read,
      // already as a sender (403); never both demoted.
      const codes = answers.map((r) => r.statusCode).sort();
      assert.ok(codes[0] === 200 && (codes[1] === 409 || codes[1] === 403), answers.map((r) => r.body).join('\n'));
      const left = (
        await server.ctx.db
          .selectFrom('users')
          .select('id')
          .where('account_id', '=', other.accountId)
          .where('role', '=', 'admin')
          .execute()
      ).length;
      assert.equal(left, 1);
    });

    test('deactivation ends every session at once and refuses logins', async () => {
      const user = await newUser('sender');
      const pair = (
        await server.request('POST', `${LEGACY}/auth/login/`, { json: { email: user.email, password: PASSWORD } })
      ).json();
      const response = await server.request('POST', `${LEGACY}/users/${user.id}/deactivate/`, { token: admin });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().status, 'deactivated');
      for (const token of [user.token, pair.access_token]) {
        assert.equal((await server.request('GET', `${API}/envelopes`, { token })).statusCode, 401);
      }
      assert.equal(
        (await server.request('POST', `${LEGACY}/auth/refresh/`, { json: { refresh_token: pair.refresh_token } }))
          .statusCode,
        401,
      );
      const login = await server.request('POST', `${LEGACY}/auth/login/`, {
        json: { email: user.email, password: PASSWORD },
      });
      assert.equal(login.statusCode, 401);
      assert.equal(login.json().code, 'invalid_credentials');
    });

    test('a user changes their own password: the current one is required, their other sessions end', async () => {
      const user = await newUser('sender');
      const other = await server.login(user.email, PASSWORD);
      const change = (current_password: string) =>
        server.request('POST', `${LEGACY}/users/me/password/`, {
          token: user.token,
          json: { current_password, new_password: 'my brand new passphrase' },
        });
      const wrong = await change('not my password');
      assert.equal(wrong.statusCode, 422);
      assert.equal(wrong.json().errors[0].path, '/current_password');
      assert.equal((await change(PASSWORD)).statusCode, 204);
      assert.equal(
        (await server.request('GET', `${API}/envelopes`, { token: other })).statusCode,
        401,
        'the other session ended',
      );
      assert.equal(
        (await server.request('GET', `${API}/envelopes`, { token: user.token })).statusCode,
        200,
        'this session goes on',
      );
      await server.login(user.email, 'my brand new passphrase');
    });

    test('a password reset always answers 202; the mailed link works once, for one hour', async () => {
      const user = await newUser('sender');
      const before = await server.ctx.db.selectFrom('outbox_mail').select('id').execute();
      const unknown = await server.request('POST', `${LEGACY}/users/password-reset/`, {
        json: { email: 'nobody@test.local' },
      });
      assert.equal(unknown.statusCode, 202);
      assert.equal(
        (await server.ctx.db.selectFrom('outbox_mail').select('id').execute()).length,
        before.length,
        'no mail for an unknown e-mail',
      );
      assert.equal(
        (await server.request('POST', `${LEGACY}/users/password-reset/`, { json: { email: user.email } })).statusCode,
        202,
      );
      const link = await linkMailedTo(user.email);
      assert.equal((await setPassword(link, 'the reset passphrase')).statusCode, 200);
      assert.equal(
        (await server.request('GET', `${API}/envelopes`, { token: user.token })).statusCode,
        401,
        'a reset ends the sessions',
      );
      assert.equal((await setPassword(link, 'the reset passphrase 2')).statusCode, 410);
      await server.login(user.email, 'the reset passphrase');
      const mails = async () =>
        (await server.ctx.db.selectFrom('outbox_mail').select('id').where('to_address', '=', user.email).execute())
          .length;
      const sent = await mails();
      await server.request('POST', `${LEGACY}/users/password-reset/`, { json: { email: user.email } });
      assert.equal(await mails(), sent, 'at most one reset mail a minute');
      server.clock.advance(61);
      await server.request('POST', `${LEGACY}/users/password-reset/`, { json: { email: user.email } });
      assert.equal(await mails(), sent + 1);
      const late = await linkMailedTo(user.email);
      server.clock.advance(3600 + 1);
      assert.equal((await setPassword(late, 'too late passphrase')).statusCode, 410);
      admin = await server.login(adminEmail, PASSWORD);
    });

    test('the audit log names who did what, when and from where, newest first, in pages', async () => {
      const user = await newUser('sender');
      await server.request('POST', `${LEGACY}/auth/login/`, {
        json: { email: user.email, password: 'wrong password' },
      });
      await server.request('PATCH', `${LEGACY}/users/${user.id}/`, { token: admin, json: { role: 'admin' } });
      const hook = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: admin,
        json: { webhook_url: 'https://127.0.0.1:9/mohar-hook' },
      });
      assert.equal(hook.statusCode, 200, hook.body);
      assert.equal(
        (await server.request('POST', `${LEGACY}/apikey/generate/`, { token: admin, json: { mode: 'live' } }))
          .statusCode,
        201,
      );
      const page = (await server.request('GET', `${LEGACY}/audit-log/?limit=200`, { token: admin })).json();
      const webhook = page.items.find((i: { action: string }) => i.action === 'webhook_changed');
      assert.equal(webhook?.target, 'https://127.0.0.1:9/mohar-hook');
      const actions = (page.items as { action: string }[]).map((i) => i.action);
      for (const action of [
        'user_invited',
        'password_set',
        'login',
        'login_failed',
        'role_changed',
        'api_key_rotated',
        'user_deactivated',
        'password_changed',
      ]) {
        assert.ok(actions.includes(action), `${action} in ${actions.join(',')}`);
      }
      const [rotated] = page.items as {
        action: string;
        actor_email: string;
        ip: string;
        target: string;
        created_at: string;
      }[];
      assert.equal(rotated!.action, 'api_key_rotated');
      assert.equal(rotated!.actor_email, adminEmail);
      assert.equal(rotated!.ip, '127.0.0.1');
      const role = page.items.find((i: { action: string }) => i.action === 'role_changed');
      assert.deepEqual([role.target, role.detail], [user.email, { from: 'sender', to: 'admin' }]);
      const first = (await server.request('GET', `${LEGACY}/audit-log/?limit=2`, { token: admin })).json();
      const second = (
        await server.request('GET', `${LEGACY}/audit-log/?limit=2&before=${first.next_before}`, { token: admin })
      ).json();
      assert.deepEqual(
        [...first.items, ...second.items].map((i: { id: string }) => i.id),
        page.items.slice(0, 4).map((i: { id: string }) => i.id),
      );
      const other = await server.newAccount();
      assert.equal(
        (await server.request('GET', `${LEGACY}/audit-log/`, { token: other.token }))
          .json()
          .items.some((i: { actor_email: string }) => i.actor_email === adminEmail),
        false,
        'accounts see their own log only',
      );
    });

    test('20 parallel wrong passwords: at most 5 are checked, then a right password is refused too; unlock lifts it', async () => {
      const user = await newUser('sender');
      const attempt = (password: string, address = '10.9.9.9') =>
        server.app.inject({
          method: 'POST',
          url: `${LEGACY}/auth/login/`,
          remoteAddress: address,
          payload: { email: user.email, password },
        });
      const answers = await Promise.all(Array.from({ length: 20 }, () => attempt('wrong password')));
      const codes = answers.map((a) => a.json().code as string);
      assert.ok(codes.filter((c) => c === 'invalid_credentials').length <= 4, codes.join(','));
      assert.ok(
        codes.every((c) => c === 'invalid_credentials' || c === 'account_locked'),
        codes.join(','),
      );
      const checked = await server.ctx.db
        .selectFrom('account_audit_log')
        .select('detail')
        .where('action', '=', 'login_failed')
        .where('target', '=', user.email)
        .execute();
      assert.ok(
        checked.filter((r) => r.detail?.includes('wrong_password')).length <= 5,
        'no more than 5 passwords were checked',
      );
      const right = await attempt(PASSWORD, '10.9.9.10');
      assert.equal(right.statusCode, 429);
      assert.equal(right.json().code, 'account_locked');
      assert.equal((await unlockUser(server.ctx, user.email.toUpperCase())).wasLocked, true);
      assert.equal((await attempt(PASSWORD, '10.9.9.10')).statusCode, 200);
    });

    test('30 failed logins from one address refuse that address, not others', async () => {
      const attempt = (address: string) =>
        server.app.inject({
          method: 'POST',
          url: `${LEGACY}/auth/login/`,
          remoteAddress: address,
          payload: { email: fresh('ghost'), password: 'wrong password' },
        });
      const answers = await Promise.all(Array.from({ length: 31 }, () => attempt('10.1.1.1')));
      const throttled = answers.filter((a) => a.json().code === 'too_many_login_attempts');
      assert.ok(throttled.length >= 1, 'the 31st is refused');
      assert.ok(Number(throttled[0]!.headers['retry-after']) > 0);
      assert.equal((await attempt('10.1.1.1')).json().code, 'too_many_login_attempts');
      assert.equal((await attempt('10.1.1.2')).json().code, 'invalid_credentials');
      assert.equal(
        (
          await server.app.inject({
            method: 'POST',
            url: `${LEGACY}/auth/login/`,
            remoteAddress: '10.1.1.2',
            payload: { email: ADMIN_EMAIL, password: 'correct horse battery staple' },
          })
        ).statusCode,
        200,
      );
    });
  });
}
