/** appendAudit / listAudit on SQLite and PostgreSQL: the chain, tampering found by seq, concurrent appends. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { isMoharError } from '../../../common/errors.js';
import { GENESIS_HASH, verifyAuditChain } from '../../../server/audit/chain.js';
import {
  appendAudit,
  auditEventView,
  auditedEnvelopeIds,
  listAudit,
  verifyEnvelopeAudit,
} from '../../../server/audit/store.js';
import { DATABASES } from '../../support/databases.js';
import { insertEnvelope, openAuditTestDb, swapSeq, tamper, type AuditTestDb } from '../../support/audit-db.js';

const T0 = Date.UTC(2024, 4, 1, 9, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000);

/** Six events of a small signing, written one by one. */
async function sixEvents(t: AuditTestDb, envelopeId: string) {
  const steps = [
    { actorType: 'api_key', actorId: 'key-1', action: 'envelope.created', details: { title: 'Lease' } },
    { actorType: 'api_key', actorId: 'key-1', action: 'envelope.sent', details: {} },
    {
      actorType: 'recipient',
      actorId: 'r-1',
      action: 'recipient.viewed',
      details: { ip: '10.0.0.7', user_agent: 'Firefox/126' },
    },
    {
      actorType: 'recipient',
      actorId: 'r-1',
      action: 'recipient.signed',
      details: { method: 'electronic', consent_at: at(3).toISOString(), ip: '10.0.0.7', user_agent: 'Firefox/126' },
    },
    { actorType: 'system', actorId: null, action: 'document.sealed', details: { document_sha256: 'ab'.repeat(32) } },
    { actorType: 'system', action: 'envelope.completed' },
  ] as const;
  for (const [i, step] of steps.entries()) await appendAudit(t.db, { envelopeId, ...step, at: at(i) });
}

for (const kind of DATABASES) {
  describe(`audit trail on ${kind}`, () => {
    let t: AuditTestDb;
    before(async () => {
      t = await openAuditTestDb(kind);
    });
    after(async () => {
      await t.close();
    });

    test('appends link each row to the one before; seq counts from 1 per envelope', async () => {
      const { envelopeId, accountId } = await insertEnvelope(t.db);
      const other = await insertEnvelope(t.db);
      await sixEvents(t, envelopeId);
      await appendAudit(t.db, { envelopeId: other.envelopeId, actorType: 'system', action: 'envelope.created' });
      const rows = await listAudit(t.db, envelopeId);
      assert.deepEqual(
        rows.map((r) => r.seq),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(rows[0]!.prev_hash, GENESIS_HASH);
      for (let i = 1; i < rows.length; i++) assert.equal(rows[i]!.prev_hash, rows[i - 1]!.hash);
      assert.ok(
        rows.every((r) => r.account_id === accountId),
        'the account comes from the envelope',
      );
      assert.equal(
        rows[3]!.details,
        `{"consent_at":"${at(3).toISOString()}","ip":"10.0.0.7","method":"electronic","user_agent":"Firefox/126"}`,
        'canonical details',
      );
      assert.equal(rows[5]!.details, '{}');
      assert.equal(rows[4]!.actor_id, null);
      assert.deepEqual(verifyAuditChain(rows), { ok: true, count: 6, headHash: rows[5]!.hash });
      assert.deepEqual(
        (await listAudit(t.db, other.envelopeId)).map((r) => r.seq),
        [1],
      );
      assert.equal(
        (await listAudit(t.db, envelopeId, { accountId: other.accountId })).length,
        0,
        'scoped to an account',
      );
      assert.deepEqual(auditEventView(rows[2]!).details, { ip: '10.0.0.7', user_agent: 'Firefox/126' });
    });

    test('inside the caller transaction, the event is written or rolled back with the change', async () => {
      const { envelopeId } = await insertEnvelope(t.db, { status: 'draft' });
      await t.db.transaction().execute(async (trx) => {
        await trx.updateTable('envelopes').set({ status: 'sent' }).where('id', '=', envelopeId).execute();
        await appendAudit(trx, {
          envelopeId,
          actorType: 'api_key',
          actorId: 'k',
          action: 'envelope.sent',
          at: at(0).toISOString(),
        });
      });
      await assert.rejects(
        t.db.transaction().execute(async (trx) => {
          await appendAudit(trx, {
            envelopeId,
            actorType: 'api_key',
            actorId: 'k',
            action: 'envelope.voided',
            details: { reason: 'typo' },
          });
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      assert.deepEqual(
        (await listAudit(t.db, envelopeId)).map((r) => r.action),
        ['envelope.sent'],
      );
    });

    test('unknown envelopes, other accounts and malformed entries are refused', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await assert.rejects(
        appendAudit(t.db, { envelopeId: 'nope', actorType: 'system', action: 'envelope.created' }),
        (e) => isMoharError(e, 'envelope_not_found'),
      );
      await assert.rejects(
        appendAudit(t.db, { envelopeId, accountId: 'someone-else', actorType: 'system', action: 'envelope.created' }),
        (e) => isMoharError(e, 'envelope_not_found'),
      );
      for (const bad of [
        { actorType: 'robot', action: 'envelope.created' },
        { actorType: 'system', action: 'Envelope Created' },
        { actorType: 'system', action: 'envelope.created', details: [] },
        { actorType: 'system', action: 'envelope.created', at: '2024-05-01 09:00' },
      ]) {
        await assert.rejects(
          appendAudit(t.db, { envelopeId, ...(bad as object) } as Parameters<typeof appendAudit>[1]),
          (e) => isMoharError(e, 'internal_error'),
        );
      }
      assert.equal((await listAudit(t.db, envelopeId)).length, 0);
    });

    test('the table refuses UPDATE and DELETE', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await sixEvents(t, envelopeId);
      await assert.rejects(
        t.db
          .updateTable('audit_events')
          .set({ details: '{}' })
          .where('envelope_id', '=', envelopeId)
          .where('seq', '=', 3)
          .execute(),
        /append-only/,
      );
      await assert.rejects(
        t.db.deleteFrom('audit_events').where('envelope_id', '=', envelopeId).execute(),
        /append-only/,
      );
      if (kind === 'postgres') await assert.rejects(sql`TRUNCATE audit_events`.execute(t.db), /append-only/);
      assert.equal((await verifyEnvelopeAudit(t.db, envelopeId)).ok, true);
    });

    test('an edited row (details of seq 3 changed in SQL) is found at seq 3', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await sixEvents(t, envelopeId);
      await tamper(t, (db) =>
        db
          .updateTable('audit_events')
          .set({ details: '{"ip":"6.6.6.6","user_agent":"Firefox/126"}' })
          .where('envelope_id', '=', envelopeId)
          .where('seq', '=', 3)
          .execute()
          .then(() => undefined),
      );
      const report = await verifyEnvelopeAudit(t.db, envelopeId);
      assert.deepEqual([report.ok, report.firstBadSeq, report.reason], [false, 3, 'hash_mismatch']);
    });

    test('a deleted row is found as the missing seq', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await sixEvents(t, envelopeId);
      await tamper(t, (db) =>
        db
          .deleteFrom('audit_events')
          .where('envelope_id', '=', envelopeId)
          .where('seq', '=', 3)
          .execute()
          .then(() => undefined),
      );
      const report = await verifyEnvelopeAudit(t.db, envelopeId);
      assert.deepEqual([report.ok, report.firstBadSeq, report.reason], [false, 3, 'missing_row']);
    });

    test('a swapped pair is found at the first of the two', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await sixEvents(t, envelopeId);
      await tamper(t, (db) => swapSeq(db, envelopeId, 3, 4));
      const report = await verifyEnvelopeAudit(t.db, envelopeId);
      assert.deepEqual([report.ok, report.firstBadSeq, report.reason], [false, 3, 'reordered']);
    });

    test('20 concurrent appends to one envelope give a gapless valid chain', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          appendAudit(t.db, {
            envelopeId,
            actorType: 'recipient',
            actorId: `r-${i}`,
            action: 'recipient.viewed',
            details: { i },
          }),
        ),
      );
      const rows = await listAudit(t.db, envelopeId);
      assert.deepEqual(
        rows.map((r) => r.seq),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(verifyAuditChain(rows).ok, true);
      assert.deepEqual(new Set(rows.map((r) => JSON.parse(r.details).i)).size, 20, 'every append is there once');
    });

    test('20 concurrent caller transactions that also update the envelope, in either order, neither fork nor deadlock', async () => {
      const { envelopeId } = await insertEnvelope(t.db);
      const other = await insertEnvelope(t.db);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.db.transaction().execute(async (trx) => {
            const touch = () =>
              trx
                .updateTable('envelopes')
                .set({ updated_at: at(i).toISOString() })
                .where('id', '=', envelopeId)
                .execute();
            if (i % 2) await touch();
            await appendAudit(trx, {
              envelopeId,
              actorType: 'recipient',
              actorId: `r-${i}`,
              action: 'recipient.signed',
              details: { i },
            });
            await appendAudit(trx, {
              envelopeId: other.envelopeId,
              actorType: 'system',
              action: 'reminder.sent',
              details: { i },
            });
            if (!(i % 2)) await touch();
          }),
        ),
      );
      for (const id of [envelopeId, other.envelopeId]) {
        const report = await verifyEnvelopeAudit(t.db, id);
        assert.deepEqual([report.ok, report.count], [true, 20]);
      }
    });

    test('auditedEnvelopeIds pages through the envelopes that have events', async () => {
      const all: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await auditedEnvelopeIds(t.db, { limit: 2, ...(after === undefined ? {} : { after }) });
        if (page.length === 0) break;
        all.push(...page);
        after = page.at(-1);
      }
      const expected = (await t.db.selectFrom('audit_events').select('envelope_id').distinct().execute()).map(
        (r) => r.envelope_id,
      );
      assert.deepEqual([...all].sort(), [...expected].sort());
      assert.equal(new Set(all).size, all.length);
    });
  });
}
