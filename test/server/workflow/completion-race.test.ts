/**
 * Completion raced by its two paths: the last act completes the envelope at once (settle-act.ts) while the
 * envelope.complete job it enqueued runs (complete-envelope.ts). Whichever commits first completes the envelope;
 * the other finishes as success: no failed job attempt, nothing logged, one envelope.completed event, audit entry,
 * completion lock and completion mail, and the winner's bytes stay the document's bytes.
 *
 * Before the fix, a path that read the envelope as `sent` just before the other's completion committed read the
 * documents just after it, met the completion lock already in the bytes and failed with field_name_taken: the job
 * was retried 30 s later (11–18 of 520 jobs in the PostgreSQL workflow bench), the act logged a warning and answered
 * `sent`. Here that interleaving is forced, not waited for: the loser's database handle (a proxy in this test) holds it
 * after its envelope read until the winner has committed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Context } from '../../../server/domain/context.js';
import { quietLogger } from '../../../server/domain/logger.js';
import { signElectronically } from '../../../server/domain/workflow/electronic-act.js';
import { completeEnvelopeJob } from '../../../server/domain/workflow/job-handlers.js';
import { resolveSession } from '../../../server/domain/workflow/sessions.js';
import { settleAct } from '../../../server/domain/workflow/settle-act.js';
import type { DecisionResult } from '../../../server/domain/workflow/decide-act.js';
import type { Database } from '../../../server/storage/schema.js';
import { jobHandlers } from '../../../server/jobs/definition.js';
import { JobRunner } from '../../../server/jobs/runner.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

const CLIENT = { ip: '127.0.0.1', userAgent: 'completion race test' };
const SIGN = { consent: true, signature: { kind: 'typed' as const, text: 'Asha Rao' } };

/** `builder` with every builder it chains to, whose execute… calls wait for `after()` once they have their rows. */
function pausing<T extends object>(builder: T, after: () => Promise<void>): T {
  return new Proxy(builder, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (typeof property === 'string' && property.startsWith('execute')) {
          return (result as Promise<unknown>).then(async (rows) => {
            await after();
            return rows;
          });
        }
        return typeof result === 'object' && result !== null && 'compile' in result ? pausing(result, after) : result;
      };
    },
  });
}

/**
 * `db` whose first statement read from the envelopes table, once it has its rows (its connection released: SQLite
 * has one), waits for release(): the caller has read the envelope and not yet gone on. A proxy, not a Kysely plugin,
 * because a plugin's transformResult runs while the statement still holds its connection.
 */
function pauseAfterEnvelopeRead(db: Kysely<Database>): {
  db: Kysely<Database>;
  reached: Promise<void>;
  release: () => void;
} {
  let armed = true;
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const paused = new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'selectFrom' || typeof value !== 'function') {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (table: unknown) => {
        const builder = (value as (t: unknown) => object).call(target, table);
        if (!armed || table !== 'envelopes') return builder;
        armed = false;
        return pausing(builder, () => {
          arrive();
          return released;
        });
      };
    },
  });
  return { db: paused, reached, release };
}

for (const kind of DATABASES) {
  describe(`completion raced by the act and the job on ${kind}`, () => {
    const t = useTestServer(kind);

    /** A one-signer envelope whose signer has signed: the act committed, completion not tried yet. */
    async function signedEnvelope(): Promise<{ id: string; act: DecisionResult }> {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha', email: 'asha@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      await t.server.runJobs(); // the invitation: only the completion job is due after the act
      const link = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(link.statusCode, 201, link.body);
      const session = await resolveSession(t.server.ctx, String(link.json().signing_url).split('/sign/')[1]!);
      const act = await signElectronically(t.server.ctx, session, SIGN, CLIENT);
      assert.deepEqual(act, { status: 'signed', envelopeFinished: true });
      return { id: draft.id, act };
    }

    /** The Context on `db` (the server's by default), every warning or error collected in `logged`. */
    function contextWith(db: Kysely<Database> | undefined, logged: string[]): Context {
      const ctx = t.server.ctx;
      return {
        ...ctx,
        db: db ?? ctx.db,
        log: {
          ...quietLogger,
          warn: (_object, message) => logged.push(`warn: ${message}`),
          error: (_object, message) => logged.push(`error: ${message}`),
        },
      };
    }

    /** A runner of the envelope.complete job alone, on `ctx`'s database, logging into `logged`. */
    function completionRunner(ctx: Context, logged: string[]): JobRunner {
      return new JobRunner({
        db: ctx.db,
        dialect: ctx.dialect,
        handlers: jobHandlers(ctx, [completeEnvelopeJob]),
        now: ctx.now,
        logger: {
          warn: (object, message) => logged.push(`job warn: ${message} ${JSON.stringify(object)}`),
          error: (object, message) => logged.push(`job error: ${message} ${JSON.stringify(object)}`),
        },
      });
    }

    const currentBytes = async (envelopeId: string): Promise<string[]> =>
      (
        await t.server.ctx.db
          .selectFrom('envelope_documents')
          .select('current_sha256')
          .where('envelope_id', '=', envelopeId)
          .orderBy('position')
          .execute()
      ).map((d) => d.current_sha256!);

    /** Completed exactly once, by one job attempt, the winner's bytes kept. */
    async function assertCompletedOnce(envelopeId: string, winnerBytes: string[]): Promise<void> {
      const db = t.server.ctx.db;
      const job = await db
        .selectFrom('jobs')
        .select(['state', 'attempts', 'last_error'])
        .where('dedupe_key', '=', `complete:${envelopeId}`)
        .executeTakeFirstOrThrow();
      assert.deepEqual(job, { state: 'done', attempts: 1, last_error: null }, 'the job succeeded at its first attempt');
      const envelope = await db
        .selectFrom('envelopes')
        .select(['status', 'certificate_sha256'])
        .where('id', '=', envelopeId)
        .executeTakeFirstOrThrow();
      assert.equal(envelope.status, 'completed');
      assert.notEqual(envelope.certificate_sha256, null, 'the job issued the certificate');
      /** Rows of `table` for this envelope whose `column` is `value`. */
      const count = async (
        table: 'events' | 'audit_events' | 'document_revisions' | 'outbox_mail',
        column: 'type' | 'action' | 'act' | 'kind',
        value: string,
      ): Promise<number> => {
        const { rows } = await sql<{ n: number | string | bigint }>`select count(*) as n from ${sql.table(table)}
          where envelope_id = ${envelopeId} and ${sql.ref(column)} = ${value}`.execute(db);
        return Number(rows[0]!.n);
      };
      const events = await count('events', 'type', 'envelope.completed');
      const audits = await count('audit_events', 'action', 'envelope.completed');
      const seals = await count('document_revisions', 'act', 'sealed');
      const mails = await count('outbox_mail', 'kind', 'completion');
      assert.deepEqual({ events, audits, seals, mails }, { events: 1, audits: 1, seals: 1, mails: 1 });
      assert.deepEqual(await currentBytes(envelopeId), winnerBytes, "the winner's bytes stay the document's");
    }

    test('the act completes the envelope between the job reading it as sent and reading its documents: the job succeeds', async () => {
      const envelope = await signedEnvelope();
      const logged: string[] = [];
      const pause = pauseAfterEnvelopeRead(t.server.ctx.db);
      const jobRun = completionRunner(contextWith(pause.db, logged), logged).runDueJobs();
      await pause.reached; // the job has read the envelope as sent
      const settled = await settleAct(contextWith(undefined, logged), envelope.id, envelope.act);
      assert.deepEqual(settled, { status: 'completed', redirectUrl: null }, 'the act completed it');
      const winnerBytes = await currentBytes(envelope.id);
      pause.release();
      assert.equal(await jobRun, 1);
      assert.deepEqual(logged, [], 'nothing failed, nothing was logged');
      await assertCompletedOnce(envelope.id, winnerBytes);
    });

    test('the job completes the envelope between the act reading it as sent and reading its documents: the act answers completed', async () => {
      const envelope = await signedEnvelope();
      const logged: string[] = [];
      const pause = pauseAfterEnvelopeRead(t.server.ctx.db);
      const settling = settleAct(contextWith(pause.db, logged), envelope.id, envelope.act);
      await pause.reached; // the act has read the envelope as sent
      assert.equal(await completionRunner(contextWith(undefined, logged), logged).runDueJobs(), 1);
      const winnerBytes = await currentBytes(envelope.id);
      pause.release();
      assert.deepEqual(await settling, { status: 'completed', redirectUrl: null }, 'the act answers completed');
      assert.deepEqual(logged, [], 'nothing failed, nothing was logged');
      await assertCompletedOnce(envelope.id, winnerBytes);
    });
  });
}
