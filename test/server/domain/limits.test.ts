/**
 * Rate-limiter stores and the monthly quota as storage behaviour, on SQLite and PostgreSQL: the shared store's
 * batches never let instances together exceed the limit; quota reservations are atomic under concurrency.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MemoryRateLimiter, SharedRateLimiter, type RateDecision } from '../../../server/domain/limits/rate-limiter.js';
import { periodOf, releaseCall, reserveCall, usageSummary } from '../../../server/domain/limits/monthly-quota.js';
import { isMoharError } from '../../../common/errors.js';
import { DATABASES } from '../../support/databases.js';
import { startTestServer, type TestServer } from '../../support/server.js';

describe('memory rate limiter', () => {
  test('counts per key and per fixed minute', () => {
    const limiter = new MemoryRateLimiter(3);
    const t0 = 60_000 * 1000 + 5_000;
    const remaining = [1, 2, 3, 4].map(() => limiter.take('a', t0));
    assert.deepEqual(
      remaining.map((d) => [d.allowed, d.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ],
    );
    assert.equal(remaining[0]!.resetAt, 60_000 * 1001);
    assert.equal(limiter.take('b', t0).allowed, true, 'another key has its own count');
    assert.equal(limiter.take('a', t0 + 54_999).allowed, false, 'same window');
    assert.deepEqual(
      [limiter.take('a', t0 + 55_000).allowed, limiter.take('a', t0 + 55_000).remaining],
      [true, 1],
      'next window',
    );
  });
});

describe('periodOf', () => {
  test('calendar months in UTC', () => {
    const p = periodOf(new Date('2024-12-31T23:59:59.999Z'));
    assert.deepEqual(
      [p.period, p.start.toISOString(), p.end.toISOString()],
      ['2024-12', '2024-12-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
    );
    assert.equal(periodOf(new Date('2025-01-01T00:00:00.000Z')).period, '2025-01');
  });
});

for (const kind of DATABASES) {
  describe(`limits storage on ${kind}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(kind);
    });
    after(() => server.close());

    const sync = async (d: RateDecision | Promise<RateDecision>): Promise<RateDecision> => d;

    test('shared limiter: two instances with batches allow exactly the limit together', async () => {
      const a = new SharedRateLimiter(server.ctx.db, 100); // batches of 5
      const b = new SharedRateLimiter(server.ctx.db, 100);
      const now = Date.now();
      let allowed = 0;
      let refusedBoth = false;
      for (let i = 0; i < 300 && !refusedBoth; i++) {
        const [x, y] = [await sync(a.take('key-1', now)), await sync(b.take('key-1', now))];
        allowed += Number(x.allowed) + Number(y.allowed);
        refusedBoth = !x.allowed && !y.allowed;
      }
      assert.equal(allowed, 100);
      const row = await server.ctx.db
        .selectFrom('rate_limit_counters')
        .select('count')
        .where('key_id', '=', 'key-1')
        .executeTakeFirstOrThrow();
      assert.ok(Number(row.count) >= 100);
      // A refused instance does not ask the database again in that window; the next window starts afresh.
      assert.equal((a.take('key-1', now) as RateDecision).allowed, false);
      assert.equal((await sync(a.take('key-1', now + 60_000))).allowed, true);
    });

    test('shared limiter on a full disk: the window is counted in the instance, reads go on, the limit holds', async () => {
      // Every statement fails as PostgreSQL's disk_full would (a new window's claim inserts a row).
      const fullDisk = server.ctx.db.withPlugin({
        transformQuery: () => {
          throw Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' });
        },
        transformResult: async (args) => args.result,
      });
      const limiter = new SharedRateLimiter(fullDisk, 40); // batches of 2
      const now = Date.now();
      let allowed = 0;
      for (let i = 0; i < 60; i++) allowed += Number((await sync(limiter.take('key-full', now))).allowed);
      assert.equal(allowed, 40);
      const other = new SharedRateLimiter(
        server.ctx.db.withPlugin({
          transformQuery: () => {
            throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
          },
          transformResult: async (args) => args.result,
        }),
        40,
      );
      await assert.rejects(sync(other.take('key-full', now)), /connection refused/, 'other failures still fail');
    });

    test('shared limiter: concurrent takes share one claim and the remaining count is right', async () => {
      const limiter = new SharedRateLimiter(server.ctx.db, 3);
      const now = Date.now();
      const decisions = await Promise.all([1, 2, 3, 4, 5].map(() => sync(limiter.take('key-2', now))));
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, true, false, false],
      );
      assert.deepEqual(
        decisions
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort(),
        [0, 1, 2],
      );
    });

    test('quota: concurrent reservations never overspend; releases give units back; test calls apart', async () => {
      const account = await server.newAccount();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => reserveCall(server.ctx, account.accountId, 3, false)),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
      for (const r of results) {
        if (r.status === 'rejected') assert.ok(isMoharError(r.reason, 'monthly_quota_exceeded'), String(r.reason));
      }
      const reservation = (
        results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof reserveCall>>>
      ).value;
      await releaseCall(server.ctx, reservation);
      await reserveCall(server.ctx, account.accountId, 3, false);
      await assert.rejects(reserveCall(server.ctx, account.accountId, 3, false), /used its 3 document calls/);
      await reserveCall(server.ctx, account.accountId, 3, true);
      await reserveCall(server.ctx, account.accountId, 0, true);
      await assert.rejects(reserveCall(server.ctx, account.accountId, 0, false), /monthly|quota|used its 0/);
      const summary = await usageSummary(server.ctx, account.accountId);
      assert.deepEqual([summary.calls_used, summary.test_calls], [3, 2]);
      await reserveCall(server.ctx, account.accountId, null, false);
      assert.equal((await usageSummary(server.ctx, account.accountId)).calls_used, 4, 'no limit: counted all the same');
    });
  });
}
