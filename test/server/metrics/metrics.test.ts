/**
 * Issue 29 point 4: GET /metrics during a small workflow (create, upload, send, sign to completion, mail jobs)
 * shows the counters and gauges move, by route pattern; the bearer token is required when set; metrics are off
 * by default. GET /readyz answers 200 when ready and 503 naming the failed check. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** The scrape as a map from `name{labels}` to value (the Prometheus text format, one sample a line). */
async function scrape(server: TestServer): Promise<Map<string, number>> {
  const response = await server.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of response.body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

const value = (samples: Map<string, number>, key: string): number => samples.get(key) ?? 0;

for (const kind of DATABASES) {
  describe(`metrics and readiness on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_METRICS: 'on', MOHAR_METRICS_TOKEN: TOKEN });
      account = await server.newAccount();
    });
    after(() => server.close());

    test('the scrape needs the bearer token', async () => {
      const none = await server.request('GET', '/metrics');
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().code, 'invalid_token');
      const wrong = await server.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } });
      assert.equal(wrong.statusCode, 401);
      assert.doesNotMatch(none.body + wrong.body, new RegExp(TOKEN));
    });

    test('a workflow moves the request, operation, PDF pool, job and outbox metrics', async () => {
      const before = await scrape(server);
      const draft = await makeDraft(server, account.key, { recipients: [{ name: 'Asha', email: 'asha@example.com' }] });
      await sendDraft(server, account.key, draft);
      const queued = await scrape(server);
      const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const link = (session.json().signing_url as string).split('/sign/')[1]!;
      const signed = await server.request('POST', `${API}/signing/${link}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      await server.request('GET', '/no/such/page/12345');
      assert.ok((await server.runJobs()) > 0);
      const later = await scrape(server);

      const create =
        'mohar_http_request_duration_seconds_count{method="POST",route="/backend/api/v1/envelopes",status="201"}';
      assert.equal(value(later, create) - value(before, create), 1, 'one create, under its route pattern');
      const sign =
        'mohar_http_request_duration_seconds_count{method="POST",route="/backend/api/v1/signing/:token",status="200"}';
      assert.equal(value(later, sign) - value(before, sign), 1);
      assert.equal(
        value(later, 'mohar_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
        1,
        'an unknown URL is one "unmatched" series, never its own',
      );
      assert.ok(![...later.keys()].some((k) => k.includes(link) || k.includes('/no/such/page')));
      for (const operation of ['signing', 'pdf_intake']) {
        const key = `mohar_operation_duration_seconds_count{operation="${operation}",outcome="ok"}`;
        assert.equal(value(later, key) - value(before, key), 1, operation);
      }
      assert.ok(value(later, 'mohar_pdf_task_duration_seconds_count{task="inspect",outcome="ok"}') >= 1);
      assert.equal(value(later, 'mohar_pdf_pool_tasks'), 0, 'nothing left in the pool');
      // The invitation's mail job waited (the test runner runs jobs only when asked), then ran.
      assert.ok(value(queued, 'mohar_job_queue_depth{kind="mail.send"}') >= 1, 'the invitation job is queued');
      assert.ok(value(queued, 'mohar_job_queue_oldest_age_seconds') >= 0);
      assert.ok(value(later, 'mohar_mail_outbox{status="kept"}') > value(before, 'mohar_mail_outbox{status="kept"}'));
      assert.equal(value(later, 'mohar_job_queue_depth{kind="mail.send"}'), 0);
      assert.ok(later.has('mohar_webhook_backlog{status="pending"}'));
      assert.ok(later.has('process_cpu_user_seconds_total'), 'the process metrics too');
    });

    test('/readyz: 200 when ready; 503 naming the check when the schema is ahead or the blob store is gone', async () => {
      const ready = await server.request('GET', '/readyz');
      assert.equal(ready.statusCode, 200, ready.body);
      assert.deepEqual(ready.json().checks, { shutdown: 'ok', database: 'ok', migrations: 'ok', blobs: 'ok' });
      assert.equal((await server.request('GET', '/healthz')).statusCode, 200);

      // A newer build migrated the database: this one must not take traffic.
      await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00Z')`.execute(
        server.ctx.db,
      );
      try {
        const ahead = await server.request('GET', '/readyz');
        assert.equal(ahead.statusCode, 503);
        assert.match(String(ahead.headers['content-type']), /^application\/problem\+json/);
        assert.equal(ahead.json().code, 'not_ready');
        assert.equal(ahead.json().checks.migrations, 'applied by a newer build: 9999_from_the_future');
        assert.equal(ahead.json().checks.database, 'ok');
      } finally {
        await sql`delete from kysely_migration where name = '9999_from_the_future'`.execute(server.ctx.db);
      }

      if (server.kind === 'sqlite') {
        // The blob root is a file, not a directory: the store cannot work.
        const root = join(server.ctx.config.dataDir, 'blobs');
        await rm(root, { recursive: true, force: true });
        await writeFile(root, 'not a directory');
        try {
          const broken = await server.request('GET', '/readyz');
          assert.equal(broken.statusCode, 503);
          assert.match(broken.json().checks.blobs, /not a directory/);
          assert.match(broken.json().detail, /blobs/);
          const samples = await scrape(server);
          assert.equal(value(samples, 'mohar_blob_store_errors_total{operation="probe"}'), 1, 'a blob store error');
        } finally {
          await rm(root);
          await mkdir(root);
        }
      }
      assert.equal((await server.request('GET', '/readyz')).statusCode, 200);
    });
  });
}

describe('metrics off by default', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(() => server.close());

  test('GET /metrics is not there; /readyz is', async () => {
    assert.equal((await server.request('GET', '/metrics')).statusCode, 404);
    assert.equal((await server.request('GET', '/readyz')).statusCode, 200);
  });
});
