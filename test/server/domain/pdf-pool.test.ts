/** The PDF worker pool's caps: time, memory, queue length; a failed worker is replaced; the event loop stays free. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { createPdfInspector } from '../../../server/domain/documents/pdf-inspector.js';
import { hostile, makePdf } from '../../support/pdf-fixtures.js';

/** Largest delay of a 50 ms interval timer while `work` runs: how long the event loop was blocked. */
async function loopLag<T>(work: Promise<T>): Promise<{ result: PromiseSettledResult<T>; lagMs: number }> {
  let last = Date.now();
  let lagMs = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    lagMs = Math.max(lagMs, now - last - 50);
    last = now;
  }, 50);
  const [result] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { result: result!, lagMs };
}

describe('PDF worker pool', () => {
  test('a task beyond the time cap fails with a clear error; the worker is replaced and the loop was never blocked', async () => {
    // 300,000 pages with the page limit lifted: about ten seconds of parsing, far beyond a 3 s cap.
    const pool = createPdfInspector({ timeoutMs: 3_000, limits: { maxPages: 10_000_000, maxObjects: 100_000_000 } });
    try {
      const pdf = hostile.manyPages(300_000);
      const started = Date.now();
      const { result, lagMs } = await loopLag(pool.inspect(pdf));
      assert.equal(result.status, 'rejected');
      const error = (result as PromiseRejectedResult).reason as Error;
      assert.ok(isMoharError(error, 'pdf_too_complex'), String(error));
      assert.match(error.message, /reading the PDF took longer than 3 s/);
      assert.ok(Date.now() - started < 6_000, 'refused at the cap, not when the work would have ended');
      assert.ok(lagMs < 1_000, `the event loop was blocked for ${lagMs} ms`);
      const info = await pool.inspect(makePdf({ pages: 2 }));
      assert.equal(info.pageCount, 2, 'a fresh worker serves the next task');
    } finally {
      await pool.close();
    }
  });

  test('a task beyond the memory cap fails with a clear error', async () => {
    const pool = createPdfInspector({
      memoryMb: 24,
      timeoutMs: 60_000,
      limits: { maxPages: 10_000_000, maxObjects: 100_000_000 },
    });
    try {
      await assert.rejects(
        pool.inspect(hostile.manyPages(300_000)),
        (e) => isMoharError(e, 'pdf_too_complex') && /more than 24 MB of memory/.test(e.message),
      );
    } finally {
      await pool.close();
    }
  });

  test('the queue is bounded: beyond it a task is refused at once with server_busy and Retry-After', async () => {
    const pool = createPdfInspector({ workers: 1, maxQueue: 1 });
    try {
      const pdf = makePdf();
      const running = pool.inspect(pdf);
      const waiting = pool.inspect(pdf);
      await assert.rejects(pool.inspect(pdf), (e) => isMoharError(e, 'server_busy') && e.retryAfterSeconds === 5);
      assert.equal((await running).pageCount, 1);
      assert.equal((await waiting).pageCount, 1);
    } finally {
      await pool.close();
    }
  });

  test('tasks of several kinds share the pool: fill returns the filled bytes', async () => {
    const pool = createPdfInspector();
    try {
      const info = await pool.inspect(makePdf());
      assert.equal(info.pageCount, 1);
      await assert.rejects(pool.run('fill', { bytes: Buffer.from('not a pdf'), values: {} }), (e) =>
        isMoharError(e, 'invalid_pdf'),
      );
    } finally {
      await pool.close();
    }
  });
});
