import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { BASE_DELAY_MS, MAX_DELAY_MS, retryDelayMs } from '../../../server/jobs/backoff.js';
import { enqueueJob, listJobs, MAX_ERROR_CHARS } from '../../../server/jobs/queue.js';
import {
  JobRunner,
  PermanentJobError,
  type JobHandlers,
  type JobRunInfo,
  type JobRunnerOptions,
} from '../../../server/jobs/runner.js';
import { DATABASES } from '../../support/databases.js';
import { MovableClock, openJobsDatabase, quietLogger, sleep, waitUntil, type JobsDatabase } from './harness.js';

describe('retry schedule', () => {
  test('30 s × 2^(attempt-1), capped at 1 h, ±20 % jitter', () => {
    const middle = () => 0.5;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 20].map((a) => retryDelayMs(a, middle) / 1000),
      [30, 60, 120, 240, 480, 960, 1920, 3600, 3600],
    );
    assert.equal(
      retryDelayMs(1, () => 0),
      BASE_DELAY_MS * 0.8,
    );
    assert.ok(Math.abs(retryDelayMs(1, () => 0.999999) - BASE_DELAY_MS * 1.2) <= 1);
    assert.ok(retryDelayMs(50, () => 0.999999) <= MAX_DELAY_MS * 1.2);
    assert.equal(retryDelayMs(1000, middle), MAX_DELAY_MS, 'huge attempt numbers do not overflow');
  });
});

for (const kind of DATABASES) {
  describe(`jobs on ${kind}`, () => {
    let jobs: JobsDatabase;
    const clock = new MovableClock();
    before(async () => {
      jobs = await openJobsDatabase(kind, 20);
    });
    after(() => jobs.close());

    const db = () => jobs.storage.db;
    const runner = (handlers: JobHandlers, options: Partial<JobRunnerOptions> = {}) =>
      new JobRunner({
        db: db(),
        dialect: jobs.storage.dialect,
        handlers,
        now: clock.now,
        random: () => 0.5,
        logger: quietLogger(),
        pollIntervalMs: 20,
        ...options,
      });
    const row = (id: string) => db().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    let kindCounter = 0;
    /** Each test uses kinds of its own, so runners never pick up another test's leftovers. */
    const freshKind = (name: string) => `${name}.${++kindCounter}`;

    test('enqueue, claim, run, done: the handler gets the payload, attempt and job id', async () => {
      const k = freshKind('echo');
      const calls: { payload: unknown; info: JobRunInfo }[] = [];
      const id = await enqueueJob(db(), { kind: k, payload: { n: 1, s: 'ä' }, now: clock.now() });
      const queued = await row(id);
      assert.equal(queued.state, 'queued');
      assert.equal(queued.attempts, 0);
      assert.equal(queued.max_attempts, 8, 'default max attempts');
      const ran = await runner({ [k]: async (payload, info) => void calls.push({ payload, info }) }).runDueJobs();
      assert.equal(ran, 1);
      assert.deepEqual(
        calls.map((c) => c.payload),
        [{ n: 1, s: 'ä' }],
      );
      assert.equal(calls[0]!.info.attempt, 1);
      assert.equal(calls[0]!.info.jobId, id);
      assert.equal(calls[0]!.info.final, false);
      const done = await row(id);
      assert.equal(done.state, 'done');
      assert.equal(done.attempts, 1);
      assert.ok(done.finished_at);
      assert.equal(done.lease_owner, null);
      assert.equal(
        await runner({ [k]: async () => assert.fail('ran twice') }).runDueJobs(),
        0,
        'a done job is not run again',
      );
    });

    test('a job is not run before run_at', async () => {
      const k = freshKind('later');
      const id = await enqueueJob(db(), {
        kind: k,
        payload: null,
        now: clock.now(),
        runAt: new Date(clock.now().getTime() + 60_000),
      });
      const r = runner({ [k]: async () => undefined });
      assert.equal(await r.runDueJobs(), 0);
      clock.advance(61_000);
      assert.equal(await r.runDueJobs(), 1);
      assert.equal((await row(id)).state, 'done');
    });

    test('failures retry with backoff on the injected clock, then the job is dead with its last error kept', async () => {
      const k = freshKind('flaky');
      let calls = 0;
      const r = runner({
        [k]: async (_p, info) => {
          calls++;
          throw new Error(`boom ${info.attempt}${info.final ? ' (final)' : ''}`);
        },
      });
      const id = await enqueueJob(db(), { kind: k, payload: {}, maxAttempts: 3, now: clock.now() });

      const t0 = clock.now().getTime();
      await r.runDueJobs();
      let job = await row(id);
      assert.equal(job.state, 'queued');
      assert.equal(job.attempts, 1);
      assert.equal(job.last_error, 'boom 1');
      assert.ok(Math.abs(Date.parse(job.run_at) - t0 - 30_000) < 1000, `first retry after 30 s (run_at ${job.run_at})`);

      assert.equal(await r.runDueJobs(), 0, 'not due yet');
      clock.advance(29_000);
      assert.equal(await r.runDueJobs(), 0, 'still not due after 29 s');
      clock.advance(1_500);
      await r.runDueJobs();
      job = await row(id);
      assert.equal(job.attempts, 2);
      assert.equal(job.last_error, 'boom 2');
      assert.ok(Math.abs(Date.parse(job.run_at) - clock.now().getTime() - 60_000) < 1000, 'second retry after 60 s');

      clock.advance(61_000);
      await r.runDueJobs();
      job = await row(id);
      assert.equal(job.state, 'dead');
      assert.equal(job.attempts, 3);
      assert.equal(job.last_error, 'boom 3 (final)');
      assert.ok(job.finished_at);
      assert.equal(calls, 3);

      clock.advance(10 * 3600_000);
      assert.equal(await r.runDueJobs(), 0, 'dead letters are not retried');
      const dead = await listJobs(db(), { state: 'dead', kind: k, limit: 10 });
      assert.deepEqual(
        dead.items.map((j) => [j.id, j.last_error]),
        [[id, 'boom 3 (final)']],
      );
    });

    test('a job that fails once and then succeeds is done', async () => {
      const k = freshKind('second-time');
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      const r = runner({
        [k]: async (_p, info) => {
          if (info.attempt === 1) throw new Error('transient');
        },
      });
      await r.runDueJobs();
      clock.advance(40_000);
      await r.runDueJobs();
      const job = await row(id);
      assert.equal(job.state, 'done');
      assert.equal(job.attempts, 2);
    });

    test('PermanentJobError kills at once; long errors are truncated; unknown kinds stay queued', async () => {
      const k = freshKind('permanent');
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      const long = await enqueueJob(db(), { kind: k, payload: { long: true }, now: clock.now() });
      const stranger = await enqueueJob(db(), { kind: freshKind('nobody-runs-this'), payload: {}, now: clock.now() });
      await runner({
        [k]: async (payload) => {
          if ((payload as { long?: boolean }).long) throw new Error('x'.repeat(10_000));
          throw new PermanentJobError('the thing is gone');
        },
      }).runDueJobs();
      const permanent = await row(id);
      assert.equal(permanent.state, 'dead');
      assert.equal(permanent.attempts, 1);
      assert.equal(permanent.last_error, 'the thing is gone');
      const truncated = await row(long);
      assert.equal(truncated.state, 'queued');
      assert.equal(truncated.last_error!.length, MAX_ERROR_CHARS);
      assert.equal((await row(stranger)).state, 'queued');
    });

    test('a dedupe key enqueues the same logical job once', async () => {
      const k = freshKind('dedupe');
      const first = await enqueueJob(db(), { kind: k, payload: { v: 1 }, dedupeKey: `${k}:x`, now: clock.now() });
      const again = await enqueueJob(db(), { kind: k, payload: { v: 2 }, dedupeKey: `${k}:x`, now: clock.now() });
      const other = await enqueueJob(db(), { kind: k, payload: { v: 3 }, dedupeKey: `${k}:y`, now: clock.now() });
      const plain1 = await enqueueJob(db(), { kind: k, payload: { v: 4 }, now: clock.now() });
      const plain2 = await enqueueJob(db(), { kind: k, payload: { v: 4 }, now: clock.now() });
      assert.equal(again, first);
      assert.equal(new Set([first, other, plain1, plain2]).size, 4);
      const rows = await db().selectFrom('jobs').select(['id', 'payload']).where('kind', '=', k).execute();
      assert.equal(rows.length, 4);
      assert.equal(JSON.parse(rows.find((r) => r.id === first)!.payload).v, 1, 'the first payload stays');
      // Inside a transaction too (ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable).
      await db()
        .transaction()
        .execute(async (trx) => {
          assert.equal(await enqueueJob(trx, { kind: k, payload: {}, dedupeKey: `${k}:x`, now: clock.now() }), first);
          await trx.selectFrom('jobs').select('id').execute();
        });
    });

    test('enqueue inside a rolled-back transaction leaves no job; a committed one does', async () => {
      const k = freshKind('tx');
      await assert.rejects(
        db()
          .transaction()
          .execute(async (trx) => {
            await enqueueJob(trx, { kind: k, payload: { rolled: 'back' }, now: clock.now() });
            await enqueueJob(trx, { kind: k, payload: {}, dedupeKey: `${k}:d`, now: clock.now() });
            throw new Error('business failure');
          }),
        /business failure/,
      );
      assert.equal((await db().selectFrom('jobs').select('id').where('kind', '=', k).execute()).length, 0);
      const id = await db()
        .transaction()
        .execute((trx) => enqueueJob(trx, { kind: k, payload: {}, dedupeKey: `${k}:d`, now: clock.now() }));
      assert.equal((await row(id)).state, 'queued', 'the dedupe key of the rolled-back job is free again');
    });

    test('a row left running with an expired lease (crashed worker) is reclaimed and run again', async () => {
      const k = freshKind('crashed');
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      const last = await enqueueJob(db(), { kind: k, payload: {}, maxAttempts: 1, now: clock.now() });
      const past = new Date(clock.now().getTime() - 1000).toISOString();
      await db()
        .updateTable('jobs')
        .set({ state: 'running', attempts: 1, lease_owner: 'crashed-host:1:dead', lease_expires_at: past })
        .where('id', 'in', [id, last])
        .execute();
      const seen: number[] = [];
      await runner({ [k]: async (_p, info) => void seen.push(info.attempt) }).runDueJobs();
      assert.deepEqual(seen, [2]);
      const job = await row(id);
      assert.equal(job.state, 'done');
      assert.equal(job.attempts, 2);
      assert.match(job.last_error ?? '', /lease expired/);
      const dead = await row(last);
      assert.equal(dead.state, 'dead', 'a crash during the last attempt makes a dead letter, not an endless loop');
      assert.match(dead.last_error ?? '', /lease expired/);
    });

    test('a runner stopped without finishing releases its job: another runner runs it at once, and the late outcome is dropped', async () => {
      const k = freshKind('abandoned');
      let release!: () => void;
      const hanging = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = false;
      const a = runner(
        {
          [k]: async () => {
            started = true;
            await hanging;
          },
        },
        { leaseMs: 5_000, owner: 'runner-a' },
      );
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      a.start();
      a.poke();
      await waitUntil(() => started, 5000, 'runner A to start the job');
      await a.stop({ timeoutMs: 50 });
      const released = await row(id);
      assert.equal(released.state, 'running');
      assert.equal(released.lease_owner, 'runner-a');
      assert.ok(released.lease_expires_at! <= clock.now().toISOString(), 'the lease ended at stop(), not 5 s later');

      const seen: string[] = [];
      const b = runner({ [k]: async (_p, info) => void seen.push(`b${info.attempt}`) }, { owner: 'runner-b' });
      assert.equal(await b.runDueJobs(), 1, 'no wait for the lease to lapse');
      assert.deepEqual(seen, ['b2']);
      release();
      await sleep(30);
      const done = await row(id);
      assert.equal(done.state, 'done');
      assert.equal(done.attempts, 2);
    });

    test('a long job keeps its lease alive: another runner does not take it', async () => {
      const k = freshKind('long');
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      const runs: string[] = [];
      const handler = (name: string) => async () => {
        runs.push(name);
        await sleep(1500);
      };
      const a = runner({ [k]: handler('a') }, { leaseMs: 500, owner: 'long-a' });
      const b = runner({ [k]: handler('b') }, { leaseMs: 500, owner: 'long-b' });
      a.start();
      await waitUntil(() => runs.length === 1, 5000, 'the first run');
      b.start();
      await waitUntil(async () => (await row(id)).state === 'done', 5000, 'the job to finish');
      await Promise.all([a.stop(), b.stop()]);
      assert.deepEqual(runs, ['a'], 'heartbeats renewed the lease, so b never ran it');
    });

    test('a job that hangs past jobTimeoutMs fails that attempt (and its signal is aborted)', async () => {
      const k = freshKind('hang');
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      let aborted = false;
      await runner(
        {
          [k]: (_p, info) =>
            new Promise<void>(() => {
              info.signal.addEventListener('abort', () => {
                aborted = true;
              });
            }),
        },
        { jobTimeoutMs: 50 },
      ).runDueJobs();
      const job = await row(id);
      assert.equal(job.state, 'queued');
      assert.match(job.last_error ?? '', /did not finish within/);
      assert.ok(aborted);
    });

    test('start() polls, poke() wakes it at once, concurrency is bounded, stop() waits for running jobs', async () => {
      const k = freshKind('polled');
      let inFlight = 0;
      let peak = 0;
      const finished: string[] = [];
      const r = runner(
        {
          [k]: async (_p, info) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            await sleep(25);
            inFlight--;
            finished.push(info.jobId);
          },
        },
        { concurrency: 3, pollIntervalMs: 60_000 },
      );
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await enqueueJob(db(), { kind: k, payload: { i }, now: clock.now() }));
      r.start();
      await waitUntil(
        () => finished.length === 10,
        5000,
        'ten jobs (the first claim at start, then each finished job claims more)',
      );
      assert.ok(peak <= 3 && peak >= 2, `at most 3 at once (peak ${peak})`);

      const woken = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      r.poke();
      await waitUntil(() => finished.includes(woken), 2000, 'a poked job despite a one-minute poll interval');

      const slow = freshKind('slow');
      let slowStarted = false;
      let slowDone = false;
      r.register(slow, async () => {
        slowStarted = true;
        await sleep(150);
        slowDone = true;
      });
      const slowId = await enqueueJob(db(), { kind: slow, payload: {}, now: clock.now() });
      r.poke();
      await waitUntil(() => slowStarted, 2000, 'the slow job to start');
      await r.stop();
      assert.ok(slowDone, 'stop() waited');
      assert.equal((await row(slowId)).state, 'done');
    });

    test('a polling runner picks up jobs without a poke', async () => {
      const k = freshKind('poll');
      const r = runner({ [k]: async () => undefined }, { pollIntervalMs: 20 });
      r.start();
      await sleep(50);
      const id = await enqueueJob(db(), { kind: k, payload: {}, now: clock.now() });
      await waitUntil(async () => (await row(id)).state === 'done', 3000, 'the polled job');
      await r.stop();
    });

    test('two runners on one database never run a job twice, and run them all', async () => {
      const k = freshKind('race');
      const values = Array.from({ length: 200 }, (_, i) => i);
      await db()
        .transaction()
        .execute(async (trx) => {
          for (const i of values) await enqueueJob(trx, { kind: k, payload: { i }, now: clock.now() });
        });
      const seen: string[] = [];
      const byRunner = { a: 0, b: 0 };
      const handler = (name: 'a' | 'b') => async (_p: unknown, info: JobRunInfo) => {
        seen.push(info.jobId);
        byRunner[name]++;
        await sleep(Math.random() * 3);
      };
      const a = runner({ [k]: handler('a') }, { concurrency: 8, pollIntervalMs: 5, owner: 'race-a' });
      const b = runner({ [k]: handler('b') }, { concurrency: 8, pollIntervalMs: 5, owner: 'race-b' });
      a.start();
      b.start();
      await waitUntil(
        async () => {
          const open = await db()
            .selectFrom('jobs')
            .select('id')
            .where('kind', '=', k)
            .where('state', '!=', 'done')
            .limit(1)
            .execute();
          return open.length === 0;
        },
        30_000,
        'all 200 jobs done',
      );
      await Promise.all([a.stop(), b.stop()]);
      assert.equal(seen.length, 200, 'no job ran twice');
      assert.equal(new Set(seen).size, 200);
      assert.ok(byRunner.a > 0 && byRunner.b > 0, `both runners took part (${byRunner.a} + ${byRunner.b})`);
      const owners = await db().selectFrom('jobs').select('attempts').where('kind', '=', k).execute();
      assert.ok(owners.every((o) => o.attempts === 1));
    });

    test('listJobs: newest first, paging with before, filters, account scope', async () => {
      const k = freshKind('listed');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        ids.push(
          await enqueueJob(db(), {
            kind: k,
            payload: { i },
            accountId: i % 2 === 0 ? 'acct-even' : 'acct-odd',
            now: clock.now(),
          }),
        );
      }
      const page1 = await listJobs(db(), { kind: k, limit: 2 });
      assert.deepEqual(
        page1.items.map((j) => j.id),
        [ids[4], ids[3]],
      );
      assert.equal(page1.next_before, ids[3]);
      const page2 = await listJobs(db(), { kind: k, limit: 2, before: page1.next_before! });
      assert.deepEqual(
        page2.items.map((j) => j.id),
        [ids[2], ids[1]],
      );
      const page3 = await listJobs(db(), { kind: k, limit: 2, before: page2.next_before! });
      assert.deepEqual(
        page3.items.map((j) => j.id),
        [ids[0]],
      );
      assert.equal(page3.next_before, null);
      assert.deepEqual(page3.items[0]!.payload, { i: 0 });
      const even = await listJobs(db(), { kind: k, accountId: 'acct-even', limit: 10 });
      assert.deepEqual(
        even.items.map((j) => j.id),
        [ids[4], ids[2], ids[0]],
      );
      assert.equal((await listJobs(db(), { kind: k, state: 'done', limit: 10 })).items.length, 0);
      await assert.rejects(
        listJobs(db(), { kind: k, accountId: 'acct-odd', limit: 2, before: ids[4] }),
        (e: unknown) => isMoharError(e, 'validation_failed'),
        "another account's job is no cursor",
      );
    });
  });
}
