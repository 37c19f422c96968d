/**
 * Issue 28 point 1: without a mail server an admin gets the links by hand. The invitation's answer carries the
 * set-password link only when the mail is kept; one outbox mail opens with its body and its links.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { linksIn } from '../../../server/mail/outbox-mail.js';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';

const fresh = (name: string) => `${name}-${randomBytes(3).toString('hex')}@test.local`;

test('links are picked out of a text in order, once each, without a full stop after them', () => {
  const text = [
    'Review and sign: https://mohar.test/sign/abc.',
    'Again https://mohar.test/sign/abc, or (http://x.test/a?b=1&c=2) and ftp://no.test/x',
  ].join('\n');
  assert.deepEqual(linksIn(text), ['https://mohar.test/sign/abc', 'http://x.test/a?b=1&c=2']);
  assert.deepEqual(linksIn('no link here'), []);
});

for (const kind of DATABASES) {
  describe(`kept links on ${kind}`, () => {
    let server: TestServer;
    let owner: TestAccount;
    let other: TestAccount;
    before(async () => {
      server = await startTestServer(kind);
      owner = await server.newAccount();
      other = await server.newAccount();
    });
    after(() => server?.close());

    const invite = (token: string, email: string) =>
      server.request('POST', `${LEGACY}/users/`, { token, json: { email, role: 'admin' } });

    test('no mail server: the invitation says kept, carries the set-password link, and the link works', async () => {
      const email = fresh('admin');
      const invited = await invite(owner.token, email);
      assert.equal(invited.statusCode, 201, invited.body);
      const { invitation } = invited.json();
      assert.equal(invitation.mail_delivery, 'kept');
      assert.match(invitation.set_password_url, /\/app\/set-password\?token=msp_/);

      const mail = await server.request('GET', `${LEGACY}/mail/outbox/${invitation.mail_id}/`, { token: owner.token });
      assert.equal(mail.statusCode, 200, mail.body);
      assert.equal(mail.json().to, email);
      assert.deepEqual(mail.json().links, [invitation.set_password_url]);
      assert.ok(mail.json().text.includes(invitation.set_password_url));

      const token = new URL(invitation.set_password_url).searchParams.get('token');
      const set = await server.request('POST', `${LEGACY}/users/set-password/`, {
        json: { token, password: 'a long enough passphrase' },
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().email, email);
    });

    test("one mail opens only in its own account's outbox, and only with an admin login", async () => {
      const invited = await invite(other.token, fresh('admin'));
      assert.equal(invited.statusCode, 201, invited.body);
      const url = `${LEGACY}/mail/outbox/${invited.json().invitation.mail_id}/`;
      assert.equal((await server.request('GET', url, { token: other.token })).statusCode, 200);
      const foreign = await server.request('GET', url, { token: owner.token });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'mail_not_found');
      assert.equal((await server.request('GET', url)).statusCode, 401);
      assert.equal((await server.request('GET', url, { key: other.key })).statusCode, 401);
      const unknown = await server.request('GET', `${LEGACY}/mail/outbox/${randomUUID()}/`, { token: owner.token });
      assert.equal(unknown.statusCode, 404);
    });
  });

  describe(`invitation with a mail server on ${kind}`, () => {
    let server: TestServer;
    before(async () => {
      // Jobs run only when a test asks (runJobs), so nothing tries to reach this server.
      server = await startTestServer(kind, { MOHAR_SMTP_URL: 'smtp://127.0.0.1:2525' });
    });
    after(() => server?.close());

    test('the invitation is queued for sending and its answer carries no link', async () => {
      const owner = await server.newAccount();
      const invited = await server.request('POST', `${LEGACY}/users/`, {
        token: owner.token,
        json: { email: fresh('sender'), role: 'sender' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal(invited.json().invitation.mail_delivery, 'queued');
      assert.equal(invited.json().invitation.set_password_url, null);
    });
  });
}
