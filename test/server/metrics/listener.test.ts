/**
 * MOHAR_METRICS_LISTEN: /metrics on a listener of its own (plain node:http, nothing else served there), the token
 * still asked, and no /metrics on the main port; the webhook worker's attempts counted. Started as `mohar serve`
 * does (startServer), in-process.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../../server/config.js';
import { startServer, type RunningServer } from '../../../server/start.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { call } from '../../support/process-server.js';
import { API, LEGACY } from '../../support/server.js';
import { PROCESS_ADMIN, processApiKey } from '../bulk/helpers.js';
import { startReceiver, type TestReceiver } from '../webhooks/receiver.js';

const TOKEN = 'listener-token-0123456789';

describe('metrics on a listener of their own', () => {
  let database: TestDatabase;
  let server: RunningServer;
  let receiver: TestReceiver;
  before(async () => {
    database = await createTestDatabase('sqlite');
    receiver = await startReceiver();
    server = await startServer(
      parseConfig({
        MOHAR_DATA_DIR: database.dataDir,
        MOHAR_PORT: '0',
        MOHAR_LOG_LEVEL: 'silent',
        MOHAR_METRICS: 'on',
        MOHAR_METRICS_TOKEN: TOKEN,
        MOHAR_METRICS_LISTEN: '127.0.0.1:0',
        MOHAR_WEBHOOK_ALLOW_PRIVATE: '1',
        ...PROCESS_ADMIN,
      }),
    );
  });
  after(async () => {
    await server?.close({ deadlineMs: 5_000 });
    await receiver?.close();
    await database?.drop();
  });

  test('serves /metrics with the token, nothing else; the main port has no /metrics', async () => {
    assert.ok(server.metricsUrl, 'the listener is up');
    assert.notEqual(server.metricsUrl, server.url);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404);
    assert.equal((await fetch(`${server.metricsUrl}/metrics`)).status, 401);
    assert.equal((await fetch(`${server.metricsUrl}/healthz`)).status, 404);
    const scraped = await fetch(`${server.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(scraped.status, 200);
    const body = await scraped.text();
    assert.match(body, /^mohar_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} 1$/m);
    assert.match(body, /^mohar_job_queue_oldest_age_seconds \d/m);
  });

  test('webhook attempts are counted by outcome', async () => {
    const scrape = async () =>
      (await fetch(`${server.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const key = await processApiKey(server.url);
    const token = (
      await call(server.url, 'POST', `${LEGACY}/auth/login/`, {
        json: { email: PROCESS_ADMIN.MOHAR_ADMIN_EMAIL, password: PROCESS_ADMIN.MOHAR_ADMIN_PASSWORD },
      })
    ).json().access_token as string;
    assert.equal(
      (await call(server.url, 'POST', `${LEGACY}/webhook/save/`, { token, json: { webhook_url: receiver.url } }))
        .status,
      200,
    );
    receiver.respond = (index) => (index === 0 ? 500 : 200);
    const created = await call(server.url, 'POST', `${API}/envelopes`, {
      key,
      json: { title: 'counted', recipients: [{ name: 'A', email: 'a@example.com' }] },
    });
    assert.equal(created.status, 201);
    await receiver.waitFor(1, 10_000);
    // The failed attempt is counted when its answer comes in (before its outcome is recorded).
    let body = await scrape();
    for (let tries = 0; tries < 100 && !/^mohar_webhook_failures_total 1$/m.test(body); tries++) {
      await sleep(50);
      body = await scrape();
    }
    assert.match(body, /^mohar_webhook_failures_total 1$/m);
    assert.match(body, /^mohar_webhook_attempts_total\{outcome="failed"\} 1$/m);
    assert.match(body, /^mohar_webhook_backlog\{status="(pending|delivering)"\} 1$/m);
  });
});
