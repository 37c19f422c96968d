/**
 * envelopeStatus on both databases: SQLite reads through the fast path (rows as arrays), PostgreSQL and a
 * SQLite connection inside a transaction through Kysely. Same answers, and never an uncommitted change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { parseConfig } from '../../../server/config.js';
import { createAccount } from '../../../server/domain/accounts/create-account.js';
import type { Context } from '../../../server/domain/context.js';
import { createEnvelope } from '../../../server/domain/envelopes/create-envelope.js';
import { envelopeStatus, type EnvelopeStatusView } from '../../../server/domain/envelopes/envelope-status.js';
import { openRuntime, type Runtime } from '../../../server/runtime.js';
import { DATABASES, createTestDatabase, type TestDatabase } from '../../support/databases.js';

for (const kind of DATABASES) {
  describe(`envelopeStatus on ${kind}`, () => {
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
          name: 'Poller',
          email: `poller-${kind}@example.com`,
          password: 'poller-password-0123',
        })
      ).accountId;
    });
    after(async () => {
      await runtime?.close();
      await database?.drop();
    });

    test('recipients in order with their state; none for an envelope without recipients; not found for another account', async () => {
      const envelope = await createEnvelope(ctx, accountId, {
        title: 'Polled',
        recipients: [
          { name: 'Second', email: 'second@example.com', sequence: 2 },
          { name: 'First', email: 'first@example.com', role: 'approver', sequence: 1 },
        ],
      });
      const expected: EnvelopeStatusView = {
        envelope_id: envelope.id,
        status: 'draft',
        recipients: envelope.recipients,
        updated_at: envelope.updated_at,
      };
      assert.deepEqual(await envelopeStatus(ctx, accountId, envelope.id), expected);
      if (ctx.sqlite) {
        assert.deepEqual(
          await envelopeStatus({ ...ctx, sqlite: undefined }, accountId, envelope.id),
          expected,
          'the Kysely path answers the same',
        );
      }

      const empty = await createEnvelope(ctx, accountId, { title: 'Nobody yet' });
      assert.deepEqual(await envelopeStatus(ctx, accountId, empty.id), {
        envelope_id: empty.id,
        status: 'draft',
        recipients: [],
        updated_at: empty.updated_at,
      });

      const other = (
        await createAccount(ctx, { name: 'Other', email: `other-${kind}@example.com`, password: 'other-password-0123' })
      ).accountId;
      await assert.rejects(envelopeStatus(ctx, other, envelope.id), (e) => isMoharError(e, 'envelope_not_found'));
    });

    test('a read while a transaction changes the envelope sees the committed state only', async () => {
      const envelope = await createEnvelope(ctx, accountId, {
        title: 'Changing',
        recipients: [{ name: 'A', email: 'a@example.com' }],
      });
      let during: Promise<EnvelopeStatusView> | undefined;
      await assert.rejects(
        ctx.db.transaction().execute(async (trx) => {
          await trx.updateTable('envelopes').set({ status: 'voided' }).where('id', '=', envelope.id).execute();
          during = envelopeStatus(ctx, accountId, envelope.id);
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal((await during!).status, 'draft', 'the rolled-back change was never visible');
    });
  });
}
