/**
 * Issue 28, point 2: an account's mail server saved in the console (GET/PUT/DELETE {legacy}/mail/settings/, POST
 * {legacy}/mail/settings/test/). The password is stored sealed and never returned; the outbox sends through the
 * saved server without a restart; the environment's MOHAR_SMTP_URL wins and locks the settings.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { saveMailSettings } from '../../../server/domain/mail-settings/save-mail-settings.js';
import { sendTestMail } from '../../../server/domain/mail-settings/send-test-mail.js';
import { queueMail } from '../../../server/mail/outbox.js';
import { mailDeliveryConfigured, mailTransportFor } from '../../../server/mail/transport-settings.js';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { closedSmtpUrl, startSmtp, type SmtpTestServer } from '../../support/smtp.js';

const PASSWORD = 'smtp-secret-Pa55word';
const SETTINGS = `${LEGACY}/mail/settings/`;

function portOf(url: string): number {
  return Number(new URL(url).port);
}

for (const kind of DATABASES) {
  describe(`mail settings on ${kind}`, () => {
    let smtp: SmtpTestServer;
    let server: TestServer;
    let owner: TestAccount;
    let other: TestAccount;
    const settingsFor = (port: number, extra: Record<string, unknown> = {}) => ({
      host: '127.0.0.1',
      port,
      tls: 'none',
      username: 'mohar',
      password: PASSWORD,
      from_address: 'sign@owner.example',
      from_name: 'Owner, Ltd.',
      ...extra,
    });

    before(async () => {
      smtp = await startSmtp({ auth: { user: 'mohar', pass: PASSWORD } });
      // The test SMTP server is on loopback, which saved mail servers may reach only when the operator allows it.
      server = await startTestServer(kind, { MOHAR_MAIL_ALLOW_PRIVATE: '1' });
      owner = await server.newAccount();
      other = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
    });

    test('without settings GET says none and mail is kept', async () => {
      const response = await server.request('GET', SETTINGS, { token: owner.token });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        source: 'none',
        host: null,
        port: null,
        tls: null,
        username: null,
        password_set: false,
        from_address: null,
        from_name: null,
        updated_at: null,
      });
      assert.equal(await mailDeliveryConfigured(server.ctx, owner.accountId), false);
    });

    test('PUT stores the password sealed; GET never returns it; the other account sees nothing', async () => {
      const saved = await server.request('PUT', SETTINGS, { token: owner.token, json: settingsFor(portOf(smtp.url)) });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(saved.json().source, 'account');
      assert.equal(saved.json().password_set, true);
      assert.ok(!saved.body.includes(PASSWORD));
      const read = await server.request('GET', SETTINGS, { token: owner.token });
      assert.equal(read.json().host, '127.0.0.1');
      assert.equal(read.json().username, 'mohar');
      assert.ok(!read.body.includes(PASSWORD));
      assert.ok(!('password' in read.json()));

      const row = await server.ctx.db
        .selectFrom('mail_settings')
        .selectAll()
        .where('account_id', '=', owner.accountId)
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(PASSWORD), 'the row holds no clear password');
      assert.match(row.password_sealed ?? '', /^v1\./);
      assert.equal(await mailDeliveryConfigured(server.ctx, owner.accountId), true);
      const choice = await mailTransportFor(server.ctx, owner.accountId);
      assert.equal(choice.source === 'account' && choice.server.password, PASSWORD, 'opened only to send');

      const stranger = await server.request('GET', SETTINGS, { token: other.token });
      assert.equal(stranger.json().source, 'none', "another account does not see this account's mail server");
    });

    test('PUT without a password keeps it; null removes it', async () => {
      const before = await server.ctx.db
        .selectFrom('mail_settings')
        .select('password_sealed')
        .where('account_id', '=', owner.accountId)
        .executeTakeFirstOrThrow();
      const withoutPassword: Record<string, unknown> = settingsFor(portOf(smtp.url), { from_name: 'Owner' });
      delete withoutPassword.password;
      const kept = await server.request('PUT', SETTINGS, { token: owner.token, json: withoutPassword });
      assert.equal(kept.json().password_set, true);
      assert.equal(kept.json().from_name, 'Owner');
      const emptyKeeps = await server.request('PUT', SETTINGS, {
        token: owner.token,
        json: { ...withoutPassword, password: '' },
      });
      assert.equal(emptyKeeps.json().password_set, true);
      const after = await server.ctx.db
        .selectFrom('mail_settings')
        .select('password_sealed')
        .where('account_id', '=', owner.accountId)
        .executeTakeFirstOrThrow();
      assert.equal(after.password_sealed, before.password_sealed);

      const otherHost = await server.request('PUT', SETTINGS, {
        token: owner.token,
        json: { ...withoutPassword, host: 'smtp.elsewhere.example' },
      });
      assert.equal(otherHost.statusCode, 422, 'a kept password is not sent to another server');
      assert.match(otherHost.json().detail, /type the password again/);
      assert.equal(otherHost.json().errors[0].path, 'body/password');

      const removed = await server.request('PUT', SETTINGS, {
        token: other.token,
        json: settingsFor(portOf(smtp.url), { password: null, username: '' }),
      });
      assert.equal(removed.json().password_set, false);
      assert.equal(removed.json().username, null);
      assert.equal((await server.request('DELETE', SETTINGS, { token: other.token })).json().source, 'none');
    });

    test('refuses a bad sender, a bad TLS mode and (unless allowed) a private address', async () => {
      const badFrom = await server.request('PUT', SETTINGS, {
        token: other.token,
        json: settingsFor(25, { from_address: 'not an address' }),
      });
      assert.equal(badFrom.statusCode, 422);
      assert.equal(badFrom.json().code, 'validation_failed');
      const badTls = await server.request('PUT', SETTINGS, {
        token: other.token,
        json: settingsFor(25, { tls: 'ssl' }),
      });
      assert.equal(badTls.statusCode, 422);
      const badPort = await server.request('PUT', SETTINGS, { token: other.token, json: settingsFor(70000) });
      assert.equal(badPort.statusCode, 422);

      const strict = { ...server.ctx, config: { ...server.ctx.config, mailAllowPrivate: false } };
      await assert.rejects(
        saveMailSettings(strict, other.accountId, null, { ...settingsFor(25), host: '10.1.2.3', tls: 'starttls' }),
        (error: Error & { code?: string }) =>
          error.code === 'validation_failed' && /not a public address/.test(error.message),
      );
      // The owner's saved loopback server, judged by a stricter operator: refused when the mail is sent.
      const refused = await sendTestMail(strict, owner.accountId, 'someone@example.com');
      assert.equal(refused.sent, false);
      assert.match(refused.detail, /not a public address.*MOHAR_MAIL_ALLOW_PRIVATE/);
    });

    test('a test mail goes through the saved server, with its login and From', async () => {
      const before = smtp.messages.length;
      const response = await server.request('POST', `${SETTINGS}test/`, {
        token: owner.token,
        json: { to: 'check@example.com' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().sent, true, response.body);
      assert.equal(response.json().source, 'account');
      assert.equal(response.json().server, `127.0.0.1:${portOf(smtp.url)}`);
      const [mail] = (await smtp.waitFor(before + 1)).slice(before);
      assert.deepEqual(mail!.to, ['check@example.com']);
      assert.equal(mail!.from, 'sign@owner.example');
      assert.equal(mail!.subject, 'Mohar test mail');
      assert.match(mail!.headers.get('from') ?? '', /Owner.*<sign@owner\.example>/);
    });

    test('a failing test mail says why in words: wrong password, closed port; none configured is 409', async () => {
      const wrong = await server.request('PUT', SETTINGS, {
        token: other.token,
        json: settingsFor(portOf(smtp.url), { password: 'wrong' }),
      });
      assert.equal(wrong.statusCode, 200);
      const refused = await server.request('POST', `${SETTINGS}test/`, {
        token: other.token,
        json: { to: 'a@b.example' },
      });
      assert.equal(refused.json().sent, false);
      assert.match(refused.json().detail, /refused the user name or password.*Invalid username or password/);

      const closed = portOf(await closedSmtpUrl());
      await server.request('PUT', SETTINGS, { token: other.token, json: settingsFor(closed) });
      const down = await server.request('POST', `${SETTINGS}test/`, {
        token: other.token,
        json: { to: 'a@b.example' },
      });
      assert.equal(down.statusCode, 200);
      assert.deepEqual(down.json(), {
        sent: false,
        source: 'account',
        server: `127.0.0.1:${closed}`,
        detail: `Nothing accepts connections at 127.0.0.1:${closed} (connection refused).`,
      });

      await server.request('DELETE', SETTINGS, { token: other.token });
      const none = await server.request('POST', `${SETTINGS}test/`, {
        token: other.token,
        json: { to: 'a@b.example' },
      });
      assert.equal(none.statusCode, 409);
      assert.equal(none.json().code, 'smtp_not_configured');
      const badTo = await server.request('POST', `${SETTINGS}test/`, { token: owner.token, json: { to: 'nobody' } });
      assert.equal(badTo.statusCode, 422);
    });

    test('kept mail goes out through the saved server with Send again, new mail at once, no restart', async () => {
      const queue = (to: string) =>
        queueMail(
          server.ctx.db,
          { accountId: other.accountId, to, kind: 'other', subject: `For ${to}`, text: 'hello' },
          server.ctx.now(),
        );
      const keptId = await queue('kept@example.com');
      await server.runJobs();
      const kept = await server.ctx.db
        .selectFrom('outbox_mail')
        .select('status')
        .where('id', '=', keptId)
        .executeTakeFirstOrThrow();
      assert.equal(kept.status, 'kept', 'no mail server yet');
      const refused = await server.request('POST', `${LEGACY}/mail/outbox/${keptId}/resend/`, { token: other.token });
      assert.equal(refused.json().code, 'smtp_not_configured');

      await server.request('PUT', SETTINGS, {
        token: other.token,
        json: settingsFor(portOf(smtp.url), { from_address: 'office@other.example', from_name: 'Other' }),
      });
      const before = smtp.messages.length;
      const resent = await server.request('POST', `${LEGACY}/mail/outbox/${keptId}/resend/`, { token: other.token });
      assert.equal(resent.statusCode, 202, resent.body);
      await queue('new@example.com');
      await server.runJobs();
      const arrived = (await smtp.waitFor(before + 2)).slice(before);
      assert.deepEqual(arrived.map((m) => m.to[0]).sort(), ['kept@example.com', 'new@example.com']);
      assert.ok(arrived.every((m) => m.from === 'office@other.example'));
      assert.ok(arrived.every((m) => /@other\.example>$/.test(m.headers.get('message-id') ?? '')));
    });

    test('senders are refused; the change is in the audit log', async () => {
      const invited = await server.request('POST', `${LEGACY}/users/`, {
        token: other.token,
        json: { email: `sender-${kind}@test.local`, role: 'sender' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const link = await server.ctx.db
        .selectFrom('outbox_mail')
        .select('text')
        .where('to_address', '=', `sender-${kind}@test.local`)
        .executeTakeFirstOrThrow();
      const token = decodeURIComponent(/set-password\?token=(\S+)/.exec(link.text)![1]!);
      const pass = 'a long enough passphrase';
      await server.request('POST', `${LEGACY}/users/set-password/`, { json: { token, password: pass } });
      const sender = await server.login(`sender-${kind}@test.local`, pass);
      for (const [method, url] of [
        ['GET', SETTINGS],
        ['PUT', SETTINGS],
        ['POST', `${SETTINGS}test/`],
      ] as const) {
        const response = await server.request(method, url, {
          token: sender,
          json: method === 'GET' ? undefined : { to: 'x@y.example' },
        });
        assert.equal(response.statusCode, 403, `${method} ${url}`);
        assert.equal(response.json().code, 'insufficient_role');
      }
      const log = await server.request('GET', `${LEGACY}/audit-log/`, { token: other.token });
      const entry = log.json().items.find((i: { action: string }) => i.action === 'mail_settings_changed');
      assert.ok(entry, log.body);
      assert.ok(!log.body.includes(PASSWORD));
    });
    test('a saved password that cannot be opened fails the mail, with the reason on its row', async () => {
      // A password sealed for another row (as after a copy of the row between accounts) does not authenticate.
      const foreign = await server.ctx.db
        .selectFrom('mail_settings')
        .select('password_sealed')
        .where('account_id', '=', other.accountId)
        .executeTakeFirstOrThrow();
      await server.ctx.db
        .updateTable('mail_settings')
        .set({ password_sealed: foreign.password_sealed })
        .where('account_id', '=', owner.accountId)
        .execute();
      const mailId = await queueMail(
        server.ctx.db,
        { accountId: owner.accountId, to: 'x@example.com', kind: 'other', subject: 'Sealed', text: 'hello' },
        server.ctx.now(),
      );
      await server.runJobs();
      const row = await server.ctx.db
        .selectFrom('outbox_mail')
        .select(['status', 'last_error', 'attempts'])
        .where('id', '=', mailId)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'queued', 'retried later');
      assert.equal(Number(row.attempts), 1);
      assert.match(row.last_error ?? '', /failed authentication/);
    });
  });

  describe(`mail settings under MOHAR_SMTP_URL on ${kind}`, () => {
    let smtp: SmtpTestServer;
    let server: TestServer;
    before(async () => {
      smtp = await startSmtp({ auth: { user: 'envuser', pass: 'envpass' } });
      server = await startTestServer(kind, {
        MOHAR_SMTP_URL: smtp.url.replace('//', '//envuser:envpass@'),
        MOHAR_MAIL_FROM: 'Operator <mail@operator.example>',
      });
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
    });

    test('the environment wins: GET says so without user or password, PUT and DELETE are locked', async () => {
      const token = await server.login();
      const read = await server.request('GET', SETTINGS, { token });
      assert.deepEqual(read.json(), {
        source: 'environment',
        host: '127.0.0.1',
        port: portOf(smtp.url),
        tls: 'starttls',
        username: null,
        password_set: true,
        from_address: 'mail@operator.example',
        from_name: 'Operator',
        updated_at: null,
      });
      assert.ok(!read.body.includes('envpass') && !read.body.includes('envuser'));
      const put = await server.request('PUT', SETTINGS, {
        token,
        json: { host: 'smtp.example.com', port: 587, tls: 'starttls', from_address: 'a@b.example' },
      });
      assert.equal(put.statusCode, 409);
      assert.equal(put.json().code, 'mail_settings_locked');
      assert.equal((await server.request('DELETE', SETTINGS, { token })).json().code, 'mail_settings_locked');
    });

    test("a test mail goes through the environment's server, From MOHAR_MAIL_FROM", async () => {
      const token = await server.login();
      const response = await server.request('POST', `${SETTINGS}test/`, { token, json: { to: 'ops@example.com' } });
      assert.equal(response.json().sent, true, response.body);
      assert.equal(response.json().source, 'environment');
      const [mail] = await smtp.waitFor(1);
      assert.equal(mail!.from, 'mail@operator.example');
      assert.match(mail!.headers.get('from') ?? '', /Operator <mail@operator\.example>/);
    });
  });
}

describe('a test mail to a server that never greets', () => {
  let server: TestServer;
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  before(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    server = await startTestServer('sqlite', { MOHAR_MAIL_ALLOW_PRIVATE: '1' });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await server?.close();
  });

  test('gives up after the greeting timeout (10 s) and says so', async () => {
    const token = await server.login();
    const port = (silent.address() as AddressInfo).port;
    await server.request('PUT', SETTINGS, {
      token,
      json: { host: '127.0.0.1', port, tls: 'none', from_address: 'a@b.example' },
    });
    const started = Date.now();
    const response = await server.request('POST', `${SETTINGS}test/`, { token, json: { to: 'c@d.example' } });
    assert.equal(response.json().sent, false);
    assert.match(response.json().detail, /did not answer in time/);
    assert.ok(Date.now() - started < 15_000, 'bounded');
  });
});
