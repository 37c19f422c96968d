/**
 * createEnvelope under concurrency, on both databases: SQLite takes the fast path (prepared statements,
 * group commit), PostgreSQL the Kysely transaction. Both must write the same rows and fail the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { listAudit, verifyEnvelopeAudit } from '../../../server/audit/index.js';
import { parseConfig } from '../../../server/config.js';
import { createAccount } from '../../../server/domain/accounts/create-account.js';
import type { Context } from '../../../server/domain/context.js';
import { createEnvelope } from '../../../server/domain/envelopes/create-envelope.js';
import type { EnvelopeInput } from '../../../server/domain/envelopes/model.js';
import { loadEnvelopeView } from '../../../server/domain/envelopes/views.js';
import { openRuntime, type Runtime } from '../../../server/runtime.js';
import { DATABASES, createTestDatabase, type TestDatabase } from '../../support/databases.js';

for (const kind of DATABASES) {
  describe(`createEnvelope on ${kind}`, () => {
    let database: TestDatabase;
    let runtime: Runtime;
    let ctx: Context;
    let accountId: string;

    before(async () => {
      database = await createTestDatabase(kind);
      runtime = await openRuntime(
        parseConfig({
          MOHAR_DATA_DIR: database.dataDir,
          MOHAR_DATABASE_URL: database.databaseUrl,
          MOHAR_LOG_LEVEL: 'warn',
        }),
      );
      ctx = runtime.ctx;
      accountId = (
        await createAccount(ctx, {
          name: 'Creator',
          email: `creator-${kind}@example.com`,
          password: 'creator-password-0123',
        })
      ).accountId;
    });
    after(async () => {
      await runtime?.close();
      await database?.drop();
    });

    test(`takes the ${kind === 'sqlite' ? 'fast path' : 'Kysely path'}`, () => {
      assert.equal(ctx.sqlite !== undefined, kind === 'sqlite');
    });

    test('concurrent creates are each written whole with their first audit row; a duplicate external_id fails alone', async () => {
      const commitsBefore = ctx.sqlite?.stats.commits ?? 0;
      const inputs: EnvelopeInput[] = Array.from({ length: 12 }, (_, i) => ({
        title: `Concurrent ${i}`,
        external_id: i === 7 ? 'concurrent-3' : `concurrent-${i}`,
        recipients: [
          { name: `Signer ${i}`, email: `signer${i}@example.com` },
          { name: 'Approver', email: 'approver@example.com', role: 'approver' },
        ],
      }));
      const results = await Promise.allSettled(inputs.map((input) => createEnvelope(ctx, accountId, input)));
      const rejected = results.flatMap((r, i) => (r.status === 'rejected' ? [{ i, reason: r.reason as unknown }] : []));
      assert.equal(rejected.length, 1, 'exactly one of the two creates with the same external_id fails');
      assert.ok([3, 7].includes(rejected[0]!.i));
      assert.ok(isMoharError(rejected[0]!.reason, 'external_id_conflict'), String(rejected[0]!.reason));
      for (const r of results) {
        if (r.status !== 'fulfilled') continue;
        const view = r.value;
        assert.deepEqual(await loadEnvelopeView(ctx.db, view.id), view, 'the answer is what was stored');
        const report = await verifyEnvelopeAudit(ctx.db, view.id);
        assert.deepEqual({ ok: report.ok, count: report.count }, { ok: true, count: 1 });
      }
      const titles = await ctx.db
        .selectFrom('envelopes')
        .select('title')
        .where('account_id', '=', accountId)
        .where('title', 'like', 'Concurrent %')
        .execute();
      assert.equal(titles.length, 11, 'the failed create left no row behind');
      if (ctx.sqlite) {
        assert.ok(ctx.sqlite.stats.commits - commitsBefore < 11, 'creates of the same moment share commits');
      }
    });

    test('the first audit row is what appendAudit would write for a new envelope', async () => {
      const view = await createEnvelope(ctx, accountId, {
        title: '  Lease  ',
        recipients: [{ name: 'A', email: 'a@example.com' }],
      });
      const [row] = await listAudit(ctx.db, view.id);
      // The row names the envelope.created event written in the same commit, as appendAudit does for every event.
      const event = await ctx.db
        .selectFrom('events')
        .select('id')
        .where('envelope_id', '=', view.id)
        .where('type', '=', 'envelope.created')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...row, hash: undefined },
        {
          envelope_id: view.id,
          seq: 1,
          account_id: accountId,
          at: view.created_at,
          actor_type: 'api_key',
          actor_id: null,
          action: 'envelope.created',
          details: `{"event_id":"${event.id}","recipients":1,"title":"Lease"}`,
          prev_hash: '0'.repeat(64),
          hash: undefined,
        },
      );
    });
  });
}
