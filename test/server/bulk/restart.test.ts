/**
 * Exactly once across interruptions, on both databases: a row whose envelope was created (or even sent)
 * before a crash lost the row's bookkeeping is resumed with that envelope, not duplicated; a job runner
 * stopped in the middle of a batch and a new one started finish it; two runs of the same chunk at once
 * (a second instance) make one envelope per row.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { createEnvelope } from '../../../server/domain/envelopes/create-envelope.js';
import { processRow } from '../../../server/domain/bulk/process-row.js';
import { documentInfos, type SourceSnapshot } from '../../../server/domain/bulk/source.js';
import { jobRunnerFor } from '../../../server/start.js';
import { JobRunner } from '../../../server/jobs/runner.js';
import { bulkChunkJob, runChunk } from '../../../server/domain/bulk/run-chunk.js';
import { jobHandlers } from '../../../server/jobs/definition.js';
import { DATABASES } from '../../support/databases.js';
import { useTestServer, type TestServer } from '../../support/server.js';
import { envelopesPerRow, getBulk, makeSource, postBulk, row, type BulkJson } from './helpers.js';

async function waitFor(
  server: TestServer,
  key: string,
  id: string,
  done: (b: BulkJson) => boolean,
  ms = 60_000,
): Promise<BulkJson> {
  const deadline = Date.now() + ms;
  for (;;) {
    const batch = await getBulk(server, key, id);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(batch.counts)}`);
    await sleep(50);
  }
}

for (const kind of DATABASES) {
  describe(`bulk send restart on ${kind}`, () => {
    const t = useTestServer(kind);

    test('crash leftovers resumed; runner stopped mid-batch and a new one started: every row exactly once', async () => {
      const rows = 80;
      const source = await makeSource(t.server, t.account.key);
      const id = (
        await postBulk(t.server, t.account.key, {
          source_envelope_id: source.id,
          rows: Array.from({ length: rows }, (_, i) => row(i)),
        })
      ).json().bulk_send_id as string;
      const ctx = t.server.ctx;
      const batch = await ctx.db.selectFrom('bulk_sends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const snapshot = JSON.parse(batch.source_snapshot) as SourceSnapshot;
      // Row 3: the process died right after its envelope was created (the row still says pending).
      const half = await createEnvelope(
        ctx,
        t.account.accountId,
        {
          title: 'Agreement 3',
          external_id: 'cust-3',
          recipients: [
            { name: 'Customer 3', email: 'c3@example.com' },
            { name: 'Witness 3', email: 'w3@example.com' },
          ],
        },
        undefined,
        { bulk_send_id: id, row_index: 3 },
      );
      // Row 4: it died after sending, before the row was marked (its bookkeeping lost).
      const input4 = await ctx.db
        .selectFrom('bulk_send_rows')
        .select(['row_index', 'input'])
        .where('bulk_send_id', '=', id)
        .where('row_index', '=', 4)
        .executeTakeFirstOrThrow();
      const plan = { batch, source: snapshot, infos: await documentInfos(ctx, t.account.accountId, snapshot) };
      assert.equal(await processRow(ctx, plan, { row_index: 4, input: input4.input }, 'crashed-worker'), 'done');
      const sent4 = await ctx.db
        .selectFrom('envelopes')
        .select(['id', 'status'])
        .where('bulk_send_id', '=', id)
        .where('row_index', '=', 4)
        .executeTakeFirstOrThrow();
      assert.equal(sent4.status, 'sent');
      await ctx.db
        .updateTable('bulk_send_rows')
        .set({ status: 'pending', envelope_id: null })
        .where('bulk_send_id', '=', id)
        .where('row_index', '=', 4)
        .execute();

      // One chunk at a time, so that stopping it (it finishes its chunk, as on SIGTERM) leaves rows for the next.
      const first = new JobRunner({
        db: ctx.db,
        dialect: ctx.dialect,
        handlers: jobHandlers(ctx, [bulkChunkJob]),
        now: ctx.now,
        pollIntervalMs: 20,
        concurrency: 1,
      });
      first.start();
      await waitFor(t.server, t.account.key, id, (b) => b.counts.sent >= 10);
      await first.stop({ timeoutMs: 30_000 });
      const middle = await getBulk(t.server, t.account.key, id);
      assert.notEqual(middle.status, 'completed', 'stopped in the middle');
      assert.ok(middle.counts.sent < rows);

      const second = jobRunnerFor(ctx, { pollIntervalMs: 20 });
      second.start();
      const done = await waitFor(t.server, t.account.key, id, (b) => b.status !== 'running' && b.status !== 'queued');
      await second.stop({ timeoutMs: 30_000 });
      assert.equal(done.status, 'completed', JSON.stringify(done.failures));
      assert.deepEqual(done.counts, { total: rows, created: rows, sent: rows, failed: 0, canceled: 0, pending: 0 });
      const per = await envelopesPerRow(t.server, id);
      assert.equal(per.size, rows);
      assert.ok([...per.values()].every((n) => n === 1));
      const kept = await ctx.db
        .selectFrom('bulk_send_rows')
        .select(['row_index', 'envelope_id'])
        .where('bulk_send_id', '=', id)
        .where('row_index', 'in', [3, 4])
        .orderBy('row_index')
        .execute();
      assert.deepEqual(
        kept.map((k) => k.envelope_id),
        [half.id, sent4.id],
        'the leftovers were resumed, not replaced',
      );
      const resumed = await ctx.db
        .selectFrom('envelopes')
        .select('status')
        .where('id', '=', half.id)
        .executeTakeFirstOrThrow();
      assert.equal(resumed.status, 'sent');
    });

    test('the same chunk run twice at once (a second instance): one envelope per row, no failures', async () => {
      const source = await makeSource(t.server, t.account.key);
      const id = (
        await postBulk(t.server, t.account.key, {
          source_envelope_id: source.id,
          rows: Array.from({ length: 20 }, (_, i) => row(500 + i)),
        })
      ).json().bulk_send_id as string;
      const both = await Promise.allSettled([
        runChunk(t.server.ctx, { bulk_send_id: id, from: 0 }),
        runChunk(t.server.ctx, { bulk_send_id: id, from: 0 }),
      ]);
      // Each run leaves the rows the other holds and asks for a retry; neither builds a row the other is building.
      for (const r of both) if (r.status === 'rejected') assert.match(String(r.reason), /claimed by another worker/);
      // The queued job of the chunk (the batch's own) finds every row done and finishes the batch.
      await t.server.runJobs();
      const batch = await getBulk(t.server, t.account.key, id);
      assert.equal(batch.status, 'completed', JSON.stringify(batch.failures));
      assert.deepEqual(batch.counts, { total: 20, created: 20, sent: 20, failed: 0, canceled: 0, pending: 0 });
      const per = await envelopesPerRow(t.server, id);
      assert.equal(per.size, 20);
      assert.ok([...per.values()].every((n) => n === 1));
    });
  });
}
