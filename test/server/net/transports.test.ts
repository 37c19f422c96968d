/**
 * Outbound HTTP is a port of the domain, like the seal: openRuntime hands the transports in (the defaults of
 * server/net/transports.ts, or the caller's), and domain code reaches the TSA through ctx.transports only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpTransport } from '../../../pdf/index.js';
import { parseConfig } from '../../../server/config.js';
import { prepareDocument } from '../../../server/domain/workflow/certify-document.js';
import { defaultTransports, type Transports } from '../../../server/net/transports.js';
import { openRuntime, type Runtime } from '../../../server/runtime.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';

describe('transports as a port of the domain', () => {
  const TSA_URL = 'http://tsa.invalid/stamp';
  const asked: string[] = [];
  const recording: HttpTransport = async ({ url }) => {
    asked.push(url);
    throw new Error('no TSA in this test');
  };
  const transports: Transports = { timestamps: recording, certificateUrls: recording, esignStatus: recording };
  let database: TestDatabase;
  let runtime: Runtime;

  before(async () => {
    database = await createTestDatabase('sqlite');
    runtime = await openRuntime(
      parseConfig({
        MOHAR_DATA_DIR: database.dataDir,
        MOHAR_DATABASE_URL: database.databaseUrl,
        MOHAR_LOG_LEVEL: 'warn',
        MOHAR_TSA_URL: TSA_URL,
      }),
      () => new Date(),
      { transports },
    );
  });
  after(async () => {
    await runtime?.close();
    await database?.drop();
  });

  test('openRuntime hands the given transports to the context', () => {
    assert.equal(runtime.ctx.transports, transports);
  });

  test('the certification at send asks the TSA through ctx.transports.timestamps', async () => {
    await assert.rejects(prepareDocument(runtime.ctx, makePdf(), [], new Date()));
    assert.deepEqual(asked, [TSA_URL]);
  });

  test('by default, certificate URLs (untrusted input) reach public addresses only unless private ones are allowed', async () => {
    await assert.rejects(
      defaultTransports({ fetchAllowPrivate: false }).certificateUrls({ url: 'http://127.0.0.1:9/' }),
      /not a public address/,
    );
    await assert.rejects(
      defaultTransports({ fetchAllowPrivate: true }).certificateUrls({ url: 'http://127.0.0.1:9/' }),
      (error: Error) => !/not a public address/.test(error.message),
    );
  });
});
