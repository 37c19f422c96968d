import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { MoharError } from '../../../common/errors.js';
import { installProblemHandlers } from '../../../server/http/problem.js';
import { fullDiskCode, storageFullError } from '../../../server/domain/storage-full.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('recognising a full disk', () => {
  test('ENOSPC, EDQUOT, SQLITE_FULL and PostgreSQL 53100, also as a cause of another error', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']) {
      assert.equal(fullDiskCode(withCode(code)), code);
      const wrapped = new MoharError('pdf_write_failed', 'wrapped', {
        cause: new Error('outer', { cause: withCode(code) }),
      });
      assert.equal(fullDiskCode(wrapped), code);
    }
  });

  test('other errors are not a full disk', () => {
    for (const error of [
      withCode('EACCES'),
      withCode('SQLITE_BUSY'),
      withCode('23505'),
      new Error('x'),
      'ENOSPC',
      null,
    ]) {
      assert.equal(fullDiskCode(error), undefined);
      assert.equal(storageFullError(error), undefined);
    }
  });

  test('storageFullError: storage_full, retry after a minute, the original as cause', () => {
    const cause = withCode('SQLITE_FULL', 'database or disk is full');
    const error = storageFullError(cause)!;
    assert.equal(error.code, 'storage_full');
    assert.equal(error.retryAfterSeconds, 60);
    assert.equal(error.cause, cause);
    assert.match(error.message, /SQLITE_FULL/);
  });
});

describe('a full disk over HTTP', () => {
  async function answerTo(thrown: unknown) {
    const app = Fastify({ logger: false });
    installProblemHandlers(app);
    app.get('/', async () => {
      throw thrown;
    });
    try {
      return await app.inject({ method: 'GET', url: '/' });
    } finally {
      await app.close();
    }
  }

  test('a driver error is 503 storage_full with Retry-After', async () => {
    const response = await answerTo(withCode('EDQUOT', 'disk quota exceeded'));
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['retry-after'], '60');
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.json().code, 'storage_full');
  });

  test('a server error wrapping one is storage_full too; a client error keeps its own code', async () => {
    const cause = withCode('ENOSPC');
    const wrapped = await answerTo(new MoharError('pdf_write_failed', 'could not write', { cause }));
    assert.equal(wrapped.json().code, 'storage_full');
    const refusal = await answerTo(new MoharError('invalid_pdf', 'not a PDF', { cause }));
    assert.equal(refusal.statusCode, 422);
    assert.equal(refusal.json().code, 'invalid_pdf');
  });
});
