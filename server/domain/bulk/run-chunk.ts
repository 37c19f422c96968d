/**
 * The fan-out job (kind bulk_send.chunk): one job per range of CHUNK_ROWS rows. It runs its own rows
 * through processRow, then enqueues the next range (dedupe key per range, so a retried job makes no second
 * successor), then finishes the batch when no row is left. One chunk of a batch at a time leaves the
 * runner's other slots to mail and completion jobs; any runner (any instance) may take the next chunk. A crash anywhere
 * is repaired by the job's retry: rows already sent are skipped,
 * half-made ones resumed (process-row.ts).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineJob, type JobPayload } from '../../jobs/definition.js';
import { PermanentJobError } from '../../jobs/runner.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { BULK_SEND_CHUNK_JOB } from '../workflow/job-kinds.js';
import { enqueueChunk } from './create-bulk-send.js';
import { finishIfDone } from './finish-batch.js';
import { processRow, rowClaimMs, type BatchPlan, type RowRef } from './process-row.js';
import { documentInfos, type SourceSnapshot } from './source.js';

export const CHUNK_ROWS = 25;
/**
 * Rows of a chunk in flight at once. PostgreSQL rows wait more on round trips (each statement is one),
 * so more of them overlap usefully; its pool (10 connections) still leaves room for API requests.
 */
export const ROW_CONCURRENCY = { sqlite: 4, postgres: 8 } as const;
const BUSY_POLL_MS = 250;
const UNFINISHED = ['pending', 'created'];

/**
 * Runs `rows` through processRow, ROW_CONCURRENCY at a time: a row waits mostly on the PDF worker pool
 * and on commits, so a few in flight keep both the event loop and the workers busy. Every row is run
 * even when one throws; the first error is rethrown afterwards (the job retries the chunk). Returns the
 * rows another worker holds.
 */
async function processRows(ctx: Context, plan: BatchPlan, rows: readonly RowRef[], worker: string): Promise<RowRef[]> {
  let next = 0;
  const busy: RowRef[] = [];
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(ROW_CONCURRENCY[ctx.dialect], rows.length) }, async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        try {
          if ((await processRow(ctx, plan, row, worker)) === 'busy') busy.push(row);
        } catch (error) {
          errors.push(error);
        }
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
  return busy;
}

/**
 * Rows another worker holds are left to it: they are looked at again every BUSY_POLL_MS until that worker
 * finished them or its claims expired (a crashed worker's, at most one lease later), within this job's
 * own lease, which the runner renews meanwhile. Only then does the job fail and retry with backoff.
 */
async function processChunkRows(ctx: Context, plan: BatchPlan, rows: readonly RowRef[], worker: string): Promise<void> {
  const until = Date.now() + rowClaimMs(ctx) + BUSY_POLL_MS;
  let busy = await processRows(ctx, plan, rows, worker);
  while (busy.length > 0 && Date.now() < until) {
    await sleep(BUSY_POLL_MS);
    busy = await processRows(ctx, plan, busy, worker);
  }
  if (busy.length > 0) {
    throw new Error(`${busy.length} row(s) from ${busy[0]!.row_index} are claimed by another worker; retrying later`);
  }
}

export async function runChunk(ctx: Context, payload: JobPayload<typeof BULK_SEND_CHUNK_JOB>): Promise<void> {
  const { bulk_send_id: batchId, from } = payload;
  const batch = await ctx.db.selectFrom('bulk_sends').selectAll().where('id', '=', batchId).executeTakeFirst();
  if (!batch) throw new PermanentJobError(`no bulk send ${batchId}`);
  // A canceled batch still runs: its rows with an envelope are finished; its pending rows are canceled already.
  if (batch.status.startsWith('completed')) return;
  const now = ctx.now();
  if (batch.status === 'queued') {
    await ctx.db
      .updateTable('bulk_sends')
      .set({ status: 'running', started_at: iso(now), updated_at: iso(now) })
      .where('id', '=', batchId)
      .where('status', '=', 'queued')
      .execute();
  }
  const source = JSON.parse(batch.source_snapshot) as SourceSnapshot;
  const rows = await ctx.db
    .selectFrom('bulk_send_rows')
    .select(['row_index', 'input', 'envelope_id'])
    .where('bulk_send_id', '=', batchId)
    .where('row_index', '>=', from)
    .where('row_index', '<', from + CHUNK_ROWS)
    .where('status', 'in', UNFINISHED)
    .orderBy('row_index')
    .execute();
  if (rows.length > 0) {
    const plan: BatchPlan = { batch, source, infos: await documentInfos(ctx, batch.account_id, source) };
    // One worker id per chunk run: its claims are its own, whichever of its concurrent rows holds them.
    await processChunkRows(
      ctx,
      plan,
      rows.map((r) => ({ row_index: Number(r.row_index), input: r.input, envelope_id: r.envelope_id })),
      randomUUID(),
    );
  }
  if (from + CHUNK_ROWS < batch.total_rows) {
    await enqueueChunk(ctx.db, batch.account_id, batchId, from + CHUNK_ROWS, ctx.now());
  }
  await finishIfDone(ctx, batchId, batch.account_id);
}

export const bulkChunkJob = defineJob(BULK_SEND_CHUNK_JOB, (ctx: Context, payload) => runChunk(ctx, payload));
