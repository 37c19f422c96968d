/**
 * MOHAR_METRICS_LISTEN: /metrics on a listener of its own (plain node:http, nothing else served there), the token
 * still asked, and no /metrics on the main port. Started as `mohar serve` does (startServer), in-process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../../server/config.js';
import { startServer, type RunningServer } from '../../../server/start.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

const TOKEN = 'listener-token-0123456789';

describe('metrics on a listener of their own', () => {
  let database: TestDatabase;
  let server: RunningServer;
  before(async () => {
    database = await createTestDatabase('sqlite');
    server = await startServer(
      parseConfig({
        MOHAR_DATA_DIR: database.dataDir,
        MOHAR_PORT: '0',
        MOHAR_LOG_LEVEL: 'silent',
        MOHAR_METRICS: 'on',
        MOHAR_METRICS_TOKEN: TOKEN,
        MOHAR_METRICS_LISTEN: '127.0.0.1:0',
      }),
    );
  });
  after(async () => {
    await server?.close({ deadlineMs: 5_000 });
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
});
