/**
 * The fan-out job (kind bulk_send.chunk): one job per range of CHUNK_ROWS rows. It runs its own rows
 * through processRow, then enqueues the next range (dedupe key per range, so a retried job makes no second
 * successor), then finishes the batch when no row is left. One chunk of a batch at a time leaves the
 * runner's other slots to mail and completion jobs; any runner (any instance) may take the next chunk. A crash anywhere is repaired by the job's retry: rows already sent are skipped,
 * half-made ones resumed (process-row.ts).
 */
import { randomUUID } from 'node:crypto';
import type { JobHandlers } from '../../jobs/runner.js';
import { PermanentJobError } from '../../jobs/runner.js';
import type { Context } from '../context.js';
import { iso } from '../context.js';
import { BULK_SEND_CHUNK_JOB } from '../workflow/job-kinds.js';
import { enqueueChunk } from './create-bulk-send.js';
import { finishIfDone } from './finish-batch.js';
import { processRow } from './process-row.js';
import type { SourceSnapshot } from './source.js';

export const CHUNK_ROWS = 25;
const UNFINISHED = ['pending', 'created'];

function payloadOf(payload: unknown): { bulk_send_id: string; from: number } {
  const p = payload as { bulk_send_id?: unknown; from?: unknown } | null;
  if (typeof p?.bulk_send_id !== 'string' || typeof p.from !== 'number') throw new PermanentJobError('bulk_send.chunk payload without bulk_send_id/from');
  return { bulk_send_id: p.bulk_send_id, from: p.from };
}

export async function runChunk(ctx: Context, payload: unknown): Promise<void> {
  const { bulk_send_id: batchId, from } = payloadOf(payload);
  const batch = await ctx.db.selectFrom('bulk_sends').selectAll().where('id', '=', batchId).executeTakeFirst();
  if (!batch) throw new PermanentJobError(`no bulk send ${batchId}`);
  // A canceled batch still runs: its rows with an envelope are finished; its pending rows are canceled already.
  if (batch.status.startsWith('completed')) return;
  const now = ctx.now();
  if (batch.status === 'queued') {
    await ctx.db.updateTable('bulk_sends').set({ status: 'running', started_at: iso(now), updated_at: iso(now) }).where('id', '=', batchId).where('status', '=', 'queued').execute();
  }
  const source = JSON.parse(batch.source_snapshot) as SourceSnapshot;
  const rows = await ctx.db.selectFrom('bulk_send_rows').select(['row_index', 'input']).where('bulk_send_id', '=', batchId)
    .where('row_index', '>=', from).where('row_index', '<', from + CHUNK_ROWS).where('status', 'in', UNFINISHED).orderBy('row_index').execute();
  const worker = randomUUID();
  let busy = 0;
  for (const row of rows) {
    if ((await processRow(ctx, batch, source, { row_index: Number(row.row_index), input: row.input }, worker)) === 'busy') busy++;
  }
  if (from + CHUNK_ROWS < batch.total_rows) await enqueueChunk(ctx.db, batch.account_id, batchId, from + CHUNK_ROWS, ctx.now());
  // Rows another worker holds: retry this chunk later (the job's backoff), when they are done or their claim expired.
  if (busy > 0) throw new Error(`${busy} row(s) of chunk ${from} are claimed by another worker; retrying later`);
  await finishIfDone(ctx, batchId, batch.account_id);
}

export function bulkJobHandlers(ctx: Context): JobHandlers {
  return { [BULK_SEND_CHUNK_JOB]: (payload) => runChunk(ctx, payload) };
}
