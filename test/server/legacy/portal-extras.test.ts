/**
 * The developer portal's server additions on SQLite and PostgreSQL: this month's use per day (GET
 * /usage/daily/), sending a kept mail again once SMTP is set (POST /mail/outbox/{id}/resend/), and retrying a
 * dead job (POST /jobs/{id}/retry/); each refused in words when it cannot be done.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { resendMail } from '../../../server/domain/operators/resend-mail.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { LEGACY, startTestServer, type TestServer } from '../../support/server.js';
import { legacyCreate, startDocServer, type DocServer } from './helpers.js';

for (const kind of DATABASES) {
  describe(`portal extras on ${kind}`, () => {
    let server: TestServer;
    let smtp: SmtpTestServer;
    let docs: DocServer;
    before(async () => {
      smtp = await startSmtp();
      docs = await startDocServer();
      server = await startTestServer(kind, { MOHAR_FETCH_ALLOW_PRIVATE: '1', MOHAR_SMTP_URL: smtp.url });
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
      await docs?.close();
    });

    test('usage per day: envelopes of every API, live and test legacy creates apart, every day of the month so far', async () => {
      const owner = await server.newAccount({ testMode: true });
      const stranger = await server.newAccount();
      assert.equal(
        (await legacyCreate(server, owner.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })).statusCode,
        200,
      );
      assert.equal(
        (await legacyCreate(server, owner.testKey!, { docUrl: `${docs.base}/doc.pdf`, mail: false })).statusCode,
        200,
      );
      await makeDraft(server, owner.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] });
      await makeDraft(server, owner.testKey!, { recipients: [{ name: 'Tara', email: 'tara@example.com' }] });
      await makeDraft(server, stranger.key, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] });
      const answer = await server.request('GET', `${LEGACY}/usage/daily/`, { token: owner.token });
      assert.equal(answer.statusCode, 200, answer.body);
      const now = server.clock.now();
      const { period, days } = answer.json() as {
        period: string;
        days: { date: string; envelopes: number; calls: number; test_calls: number; test_envelopes: number }[];
      };
      assert.equal(period, now.toISOString().slice(0, 7));
      assert.equal(days.length, now.getUTCDate(), 'one entry per day up to today');
      assert.equal(days[0]!.date, `${period}-01`);
      assert.deepEqual(
        days.at(-1),
        { date: now.toISOString().slice(0, 10), envelopes: 4, calls: 1, test_calls: 1, test_envelopes: 2 },
        "the test key's legacy create and its v1 draft are test data",
      );
      assert.equal(
        days.slice(0, -1).reduce((sum, d) => sum + d.envelopes, 0),
        0,
      );
      // The same with the API key; nothing without credentials.
      assert.deepEqual(
        (await server.request('GET', `${LEGACY}/usage/daily/`, { key: owner.key })).json().days.at(-1).envelopes,
        4,
      );
      assert.equal((await server.request('GET', `${LEGACY}/usage/daily/`)).statusCode, 401);
    });

    test('a kept mail is sent again once SMTP is set; only kept or failed mails; refused without SMTP', async () => {
      const owner = await server.newAccount();
      await sendDraft(
        server,
        owner.key,
        await makeDraft(server, owner.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] }),
      );
      const mail = await server.ctx.db
        .selectFrom('outbox_mail')
        .select(['id'])
        .where('account_id', '=', owner.accountId)
        .executeTakeFirstOrThrow();
      // As if it had been kept before the operator set MOHAR_SMTP_URL.
      await server.ctx.db.updateTable('outbox_mail').set({ status: 'kept' }).where('id', '=', mail.id).execute();
      await server.ctx.db
        .updateTable('jobs')
        .set({ state: 'done' })
        .where('account_id', '=', owner.accountId)
        .execute();
      const withoutSmtp = { ...server.ctx, config: { ...server.ctx.config, smtpUrl: undefined } };
      await assert.rejects(resendMail(withoutSmtp, owner.accountId, mail.id), { code: 'smtp_not_configured' });
      // An unknown mail is 404 whether or not SMTP is set (issue 27, point 10).
      const unknownId = '00000000-0000-4000-8000-00000000abcd';
      await assert.rejects(resendMail(withoutSmtp, owner.accountId, unknownId), { code: 'mail_not_found' });
      const unknown = await server.request('POST', `${LEGACY}/mail/outbox/${unknownId}/resend/`, {
        token: owner.token,
      });
      assert.equal(unknown.statusCode, 404, unknown.body);
      assert.equal(unknown.json().code, 'mail_not_found');

      const resent = await server.request('POST', `${LEGACY}/mail/outbox/${mail.id}/resend/`, { token: owner.token });
      assert.equal(resent.statusCode, 202, resent.body);
      assert.equal(resent.json().status, 'queued');
      const before = smtp.messages.length;
      await server.runJobs();
      await smtp.waitFor(before + 1);
      const listed = (await server.request('GET', `${LEGACY}/mail/outbox/`, { token: owner.token })).json().items;
      assert.equal(listed[0].status, 'sent');
      const again = await server.request('POST', `${LEGACY}/mail/outbox/${mail.id}/resend/`, { token: owner.token });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'mail_not_resendable');
      const stranger = await server.newAccount();
      assert.equal(
        (await server.request('POST', `${LEGACY}/mail/outbox/${mail.id}/resend/`, { token: stranger.token })).json()
          .code,
        'mail_not_found',
      );
      assert.equal(
        (await server.request('POST', `${LEGACY}/mail/outbox/${mail.id}/resend/`, { key: owner.key })).statusCode,
        401,
        'a login, not an API key',
      );
    });

    test('a dead job is retried once, now; a live one is not', async () => {
      const owner = await server.newAccount();
      await sendDraft(
        server,
        owner.key,
        await makeDraft(server, owner.key, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] }),
      );
      const job = await server.ctx.db
        .selectFrom('jobs')
        .select(['id'])
        .where('account_id', '=', owner.accountId)
        .where('kind', '=', 'mail.send')
        .executeTakeFirstOrThrow();
      const notDead = await server.request('POST', `${LEGACY}/jobs/${job.id}/retry/`, { token: owner.token });
      assert.equal(notDead.statusCode, 409);
      assert.equal(notDead.json().code, 'job_not_dead');
      await server.ctx.db
        .updateTable('jobs')
        .set({
          state: 'dead',
          attempts: 8,
          max_attempts: 8,
          last_error: 'SMTP 421',
          finished_at: server.clock.now().toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
      const retried = await server.request('POST', `${LEGACY}/jobs/${job.id}/retry/`, { token: owner.token });
      assert.equal(retried.statusCode, 202, retried.body);
      assert.deepEqual(
        [retried.json().state, retried.json().attempts, retried.json().max_attempts, retried.json().finished_at],
        ['queued', 8, 9, null],
      );
      const before = smtp.messages.length;
      await server.runJobs();
      await smtp.waitFor(before + 1);
      const listed = (await server.request('GET', `${LEGACY}/jobs/?kind=mail.send`, { token: owner.token })).json()
        .items;
      assert.equal(listed.find((j: { id: string }) => j.id === job.id).state, 'done');
      const stranger = await server.newAccount();
      assert.equal(
        (await server.request('POST', `${LEGACY}/jobs/${job.id}/retry/`, { token: stranger.token })).json().code,
        'job_not_found',
      );
    });

    test('a sender login gets 403 insufficient_role on all three', async () => {
      const owner = await server.newAccount();
      const email = `sender-${owner.accountId.slice(0, 6)}@test.local`;
      assert.equal(
        (await server.request('POST', `${LEGACY}/users/`, { token: owner.token, json: { email, role: 'sender' } }))
          .statusCode,
        201,
      );
      const mail = await server.ctx.db
        .selectFrom('outbox_mail')
        .select('text')
        .where('to_address', '=', email)
        .executeTakeFirstOrThrow();
      const link = /\/app\/set-password\?token=(\S+)/.exec(mail.text);
      assert.ok(link, mail.text);
      const password = 'sender password 12345';
      assert.equal(
        (
          await server.request('POST', `${LEGACY}/users/set-password/`, {
            json: { token: decodeURIComponent(link[1]!), password },
          })
        ).statusCode,
        200,
      );
      const token = await server.login(email, password);
      const id = '00000000-0000-4000-8000-000000000000';
      for (const [method, url] of [
        ['GET', '/usage/daily/'],
        ['POST', `/mail/outbox/${id}/resend/`],
        ['POST', `/jobs/${id}/retry/`],
      ] as const) {
        const answer = await server.request(method, `${LEGACY}${url}`, { token });
        assert.equal(answer.statusCode, 403, `${method} ${url}`);
        assert.equal(answer.json().code, 'insufficient_role');
      }
    });
  });
}
