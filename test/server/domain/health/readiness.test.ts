/** checkReadiness (GET /readyz): draining at shutdown, and a blob store that fails or does not answer. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkReadiness } from '../../../../server/domain/health/readiness.js';
import type { BlobStore } from '../../../../server/storage/blobs.js';
import { startTestServer, type TestServer } from '../../../support/server.js';

describe('checkReadiness', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(() => server.close());

  /** The server's store with another probe (a class instance: its methods live on the prototype). */
  const withProbe = (probe: () => Promise<void>): BlobStore =>
    Object.create(server.ctx.blobs, { probe: { value: probe } }) as BlobStore;

  test('ready; not ready once draining, the other checks still ok', async () => {
    assert.deepEqual(await checkReadiness(server.ctx, { draining: false }), {
      ready: true,
      checks: { shutdown: 'ok', database: 'ok', migrations: 'ok', blobs: 'ok' },
    });
    const draining = await checkReadiness(server.ctx, { draining: true });
    assert.equal(draining.ready, false);
    assert.equal(draining.checks.shutdown, 'shutting down');
    assert.equal(draining.checks.database, 'ok');
  });

  test('a blob store that fails, or hangs, is named with the reason', async () => {
    const failing = await checkReadiness(
      { db: server.ctx.db, blobs: withProbe(() => Promise.reject(new Error('bucket unreachable'))) },
      { draining: false },
    );
    assert.deepEqual([failing.ready, failing.checks.blobs], [false, 'bucket unreachable']);
    const hanging = await checkReadiness(
      { db: server.ctx.db, blobs: withProbe(() => new Promise<void>(() => undefined)) },
      { draining: false },
    );
    assert.deepEqual([hanging.ready, hanging.checks.blobs], [false, 'no answer within 2000 ms']);
  });
});
