/**
 * Typed job definitions (server/jobs/definition.ts): the runner's handler checks the stored payload against the
 * kind's schema before the definition's handler sees it; enqueue checks the payload's type at compile time (the
 * @ts-expect-error lines fail `npm run typecheck` if a wrong payload is ever accepted); the server's list names
 * each kind once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from 'typebox';
import { defineJob, enqueue, jobHandlers, jobKind, parseJobPayload } from '../../../server/jobs/definition.js';
import { enqueueJob } from '../../../server/jobs/queue.js';
import { JobRunner, PermanentJobError } from '../../../server/jobs/runner.js';
import { SERVER_JOBS } from '../../../server/start.js';
import { MovableClock, openJobsDatabase, quietLogger, type JobsDatabase } from './harness.js';

const ECHO_JOB = jobKind('test.echo', Type.Object({ text: Type.String(), times: Type.Integer({ minimum: 1 }) }));

describe('typed job definitions', () => {
  let jobs: JobsDatabase;
  const clock = new MovableClock();
  before(async () => {
    jobs = await openJobsDatabase('sqlite');
  });
  after(() => jobs.close());

  const heard: string[] = [];
  const echoJob = defineJob(ECHO_JOB, async (deps: { prefix: string }, payload) => {
    heard.push(`${deps.prefix}${payload.text.repeat(payload.times)}`);
  });
  const runner = () =>
    new JobRunner({
      db: jobs.storage.db,
      dialect: jobs.storage.dialect,
      handlers: jobHandlers({ prefix: '> ' }, [echoJob]),
      now: clock.now,
      logger: quietLogger(),
    });
  const row = (id: string) =>
    jobs.storage.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('the handler gets the typed payload and its dependencies', async () => {
    heard.length = 0;
    const id = await enqueue(jobs.storage.db, ECHO_JOB, { text: 'ab', times: 2 }, { now: clock.now() });
    assert.equal((await row(id)).kind, 'test.echo');
    assert.equal(await runner().runDueJobs(), 1);
    assert.deepEqual(heard, ['> abab']);
    assert.equal((await row(id)).state, 'done');
  });

  test('a stored payload that does not fit the kind: dead at the first attempt, saying what is wrong', async () => {
    heard.length = 0;
    // Written around the typed enqueue, as an older server or a hand-made row could have.
    const id = await enqueueJob(jobs.storage.db, { kind: ECHO_JOB.kind, payload: { text: 7 }, now: clock.now() });
    await runner().runDueJobs();
    const dead = await row(id);
    assert.equal(dead.state, 'dead');
    assert.equal(dead.attempts, 1);
    assert.match(dead.last_error ?? '', /^test\.echo payload does not fit the job: .*\/text/);
    assert.deepEqual(heard, [], 'the handler never ran');
  });

  test('enqueue refuses a payload of another shape at compile time', () => {
    // Never called: the point is the compiler's verdict on each line.
    const compileOnly = async () => {
      // @ts-expect-error times is missing
      await enqueue(jobs.storage.db, ECHO_JOB, { text: 'a' });
      // @ts-expect-error text must be a string
      await enqueue(jobs.storage.db, ECHO_JOB, { text: 1, times: 1 });
    };
    assert.equal(typeof compileOnly, 'function');
  });

  test('parseJobPayload says which kind and which property', () => {
    assert.deepEqual(parseJobPayload(ECHO_JOB, { text: 'x', times: 1 }), { text: 'x', times: 1 });
    assert.throws(
      () => parseJobPayload(ECHO_JOB, null),
      (error: unknown) => error instanceof PermanentJobError && /^test\.echo payload/.test(error.message),
    );
  });

  test('two definitions of one kind are refused; the server lists each kind once', () => {
    assert.throws(() => jobHandlers({ prefix: '' }, [echoJob, echoJob]), /two job definitions of kind test\.echo/);
    const kinds = SERVER_JOBS.map((j) => j.kind);
    assert.deepEqual(kinds.toSorted(), [
      'blobs.collect',
      'bulk_send.chunk',
      'envelope.complete',
      'envelope.expire',
      'mail.send',
      'reminders.sweep',
      'retention.purge',
    ]);
  });
});
