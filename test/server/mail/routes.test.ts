/**
 * GET {legacy}/mail/outbox/ and GET {legacy}/jobs/ on a small Fastify app of their own (the
 * routes are not wired into server/app.ts by this suite), sharing the test server's context, so
 * logins and accounts are real.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { JobRunner } from '../../../server/jobs/runner.js';
import { jobHandlers } from '../../../server/jobs/definition.js';
import { installProblemHandlers } from '../../../server/http/problem.js';
import { queueMail } from '../../../server/mail/outbox.js';
import { mailSendJob } from '../../../server/mail/send.js';
import { invitationMail } from '../../../server/mail/templates.js';
import { jobRoutes } from '../../../server/routes/account/jobs.js';
import { mailRoutes } from '../../../server/routes/account/mail.js';
import type { App } from '../../../server/http/app-type.js';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { quietLogger } from '../jobs/harness.js';

async function routeApp(server: TestServer): Promise<App> {
  const app = Fastify({
    logger: false,
    ajv: { customOptions: { allErrors: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorateRequest('apiKey', null);
  app.decorateRequest('user', null);
  installProblemHandlers(app);
  await app.register(
    async (legacy: App) => {
      mailRoutes(legacy, server.ctx);
      jobRoutes(legacy, server.ctx);
    },
    { prefix: LEGACY },
  );
  await app.ready();
  return app;
}

for (const kind of DATABASES) {
  describe(`outbox and jobs routes on ${kind}`, () => {
    let server: TestServer;
    let app: App;
    let owner: TestAccount;
    let other: TestAccount;
    const ids: string[] = [];
    before(async () => {
      server = await startTestServer(kind);
      app = await routeApp(server);
      owner = await server.newAccount();
      other = await server.newAccount();
      for (let i = 0; i < 5; i++) {
        server.clock.advance(1);
        const content = invitationMail({
          envelopeTitle: `Contract ${i}`,
          recipientName: `R${i}`,
          senderName: 'Owner',
          signingUrl: `https://mohar.test/s/${i}`,
        });
        ids.push(
          await queueMail(
            server.ctx.db,
            { accountId: owner.accountId, to: `r${i}@example.com`, kind: 'invitation', ...content },
            server.ctx.now(),
          ),
        );
      }
      await queueMail(
        server.ctx.db,
        { accountId: other.accountId, to: 'x@example.com', kind: 'other', subject: 'Other account', text: 'hidden' },
        server.ctx.now(),
      );
      // No MOHAR_SMTP_URL on the test server: the send jobs keep the first three mails.
      const runner = new JobRunner({
        db: server.ctx.db,
        dialect: server.ctx.dialect,
        handlers: jobHandlers(server.ctx, [mailSendJob]),
        now: server.ctx.now,
        logger: quietLogger(),
        concurrency: 1,
      });
      await server.ctx.db
        .updateTable('jobs')
        .set({ run_at: '2999-01-01T00:00:00.000Z' })
        .where(
          'payload',
          'in',
          ids.slice(3).map((id) => JSON.stringify({ mail_id: id })),
        )
        .execute();
      await runner.runDueJobs();
    });
    after(async () => {
      await app?.close();
      await server?.close();
    });

    const get = (url: string, token?: string) =>
      app.inject({ method: 'GET', url: `${LEGACY}${url}`, headers: token ? { authorization: `Bearer ${token}` } : {} });

    test("the outbox lists the account's mails newest first, without bodies", async () => {
      const response = await get('/mail/outbox/', owner.token);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(
        body.items.map((m: { id: string }) => m.id),
        [...ids].reverse(),
      );
      assert.equal(body.next_before, null);
      const newest = body.items[0];
      assert.deepEqual(Object.keys(newest).sort(), [
        'attachments',
        'attempts',
        'created_at',
        'envelope_id',
        'id',
        'kind',
        'last_error',
        'recipient_id',
        'sent_at',
        'status',
        'subject',
        'test',
        'to',
        'to_name',
      ]);
      assert.equal(newest.to, 'r4@example.com');
      assert.equal(newest.subject, 'Owner sent you “Contract 4” to sign');
      assert.equal(newest.status, 'queued');
      assert.equal(body.items[4].status, 'kept');
    });

    test('filter by status, page with limit and before, include=body', async () => {
      const kept = (await get('/mail/outbox/?status=kept', owner.token)).json();
      assert.deepEqual(
        kept.items.map((m: { id: string }) => m.id),
        [ids[2], ids[1], ids[0]],
      );
      const page1 = (await get('/mail/outbox/?limit=2', owner.token)).json();
      assert.deepEqual(
        page1.items.map((m: { id: string }) => m.id),
        [ids[4], ids[3]],
      );
      assert.equal(page1.next_before, ids[3]);
      const page2 = (await get(`/mail/outbox/?limit=2&before=${page1.next_before}`, owner.token)).json();
      assert.deepEqual(
        page2.items.map((m: { id: string }) => m.id),
        [ids[2], ids[1]],
      );
      const withBody = (await get('/mail/outbox/?limit=1&include=body', owner.token)).json();
      assert.match(withBody.items[0].text, /Review and sign: https:\/\/mohar\.test\/s\/4/);
      assert.match(withBody.items[0].html, /<html lang="en">/);
    });

    test('another account sees only its own mail, and cannot page with a foreign id', async () => {
      const body = (await get('/mail/outbox/', other.token)).json();
      assert.deepEqual(
        body.items.map((m: { subject: string }) => m.subject),
        ['Other account'],
      );
      const foreign = await get(`/mail/outbox/?before=${ids[0]}`, other.token);
      assert.equal(foreign.statusCode, 422);
      assert.equal(foreign.json().code, 'validation_failed');
    });

    test('bad query parameters are validation_failed', async () => {
      for (const query of ['status=lost', 'limit=0', 'limit=500', 'before=nope', 'include=everything']) {
        const response = await get(`/mail/outbox/?${query}`, owner.token);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().code, 'validation_failed', query);
      }
    });

    test('both routes need the api_admin login', async () => {
      for (const url of ['/mail/outbox/', '/jobs/']) {
        const missing = await get(url);
        assert.equal(missing.statusCode, 401);
        assert.equal(missing.json().code, 'invalid_token');
        assert.match(missing.headers['content-type'] as string, /problem\+json/);
        const wrong = await get(url, 'not-a-token');
        assert.equal(wrong.statusCode, 401);
        const byKey = await app.inject({ method: 'GET', url: `${LEGACY}${url}`, headers: { 'x-api-key': owner.key } });
        assert.equal(byKey.statusCode, 401, 'an API key is not enough');
      }
    });

    test("jobs: the account's mail.send jobs, filtered by state", async () => {
      const all = (await get('/jobs/', owner.token)).json();
      assert.equal(all.items.length, 5);
      assert.ok(all.items.every((j: { kind: string }) => j.kind === 'mail.send'));
      const done = (await get('/jobs/?state=done', owner.token)).json();
      assert.deepEqual(
        done.items.map((j: { payload: { mail_id: string } }) => j.payload.mail_id),
        [ids[2], ids[1], ids[0]],
      );
      const queued = (await get('/jobs/?state=queued&limit=1', owner.token)).json();
      assert.equal(queued.items.length, 1);
      assert.equal(queued.items[0].attempts, 0);
      assert.equal(queued.items[0].run_at, '2999-01-01T00:00:00.000Z');
      assert.ok(queued.next_before);
      assert.equal((await get('/jobs/?state=dead', owner.token)).json().items.length, 0);
      assert.equal((await get('/jobs/', other.token)).json().items.length, 1);
      const bad = await get('/jobs/?state=zombie', owner.token);
      assert.equal(bad.statusCode, 422);
    });
  });
}
