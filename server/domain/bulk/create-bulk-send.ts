/**
 * POST /bulk-sends: read the source once (snapshot), validate every row, then write the batch, all its
 * rows and the first chunk job in ONE transaction: a refused or failed call queues nothing, an accepted
 * one is durable before the 202 is answered. The Idempotency-Key's row, done with the 202's answer, is in that
 * transaction too (issue 33): a crash leaves the batch and its key's answer, or neither.
 */
import type { Kysely } from 'kysely';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { newId } from '../ids.js';
import type { Database } from '../../storage/schema.js';
import { enqueue } from '../../jobs/definition.js';
import { BULK_SEND_CHUNK_JOB } from '../workflow/job-kinds.js';
import type { BulkRow } from './merge.js';
import { loadSource, type SourceRef } from './source.js';
import { validateRows } from './validate-rows.js';
import type { KeyInCommit } from '../idempotency/idempotency.js';
import { insertKeyInTransaction } from '../idempotency/key-in-transaction.js';

/** Rows written per INSERT (well under both databases' bound-parameter limits). */
const INSERT_CHUNK = 500;

export interface BulkSendInput extends SourceRef {
  rows: BulkRow[];
}

export interface BulkSendAccepted {
  bulk_send_id: string;
  status: 'queued';
  total_rows: number;
  created_at: string;
}

export async function enqueueChunk(
  db: Kysely<Database>,
  accountId: string,
  bulkSendId: string,
  from: number,
  now: Date,
): Promise<void> {
  // The dedupe key names the chunk: a retried job that re-enqueues its successor makes no second one.
  await enqueue(
    db,
    BULK_SEND_CHUNK_JOB,
    { bulk_send_id: bulkSendId, from },
    { dedupeKey: `bulk_send:${bulkSendId}:${from}`, accountId, now, maxAttempts: 20 },
  );
}

export async function createBulkSend(
  ctx: Context,
  accountId: string,
  input: BulkSendInput,
  idempotencyKey: string,
  claim?: KeyInCommit,
): Promise<BulkSendAccepted> {
  const source = await loadSource(ctx, accountId, input);
  await validateRows(ctx, accountId, source, input.rows);
  const id = newId();
  const now = ctx.now();
  const at = iso(now);
  const accepted: BulkSendAccepted = {
    bulk_send_id: id,
    status: 'queued',
    total_rows: input.rows.length,
    created_at: at,
  };
  await ctx.db.transaction().execute(async (trx) => {
    if (claim) await insertKeyInTransaction(trx, claim, accepted, now);
    await trx
      .insertInto('bulk_sends')
      .values({
        id,
        account_id: accountId,
        source_kind: source.kind,
        source_id: source.id,
        source_version: source.version,
        source_snapshot: JSON.stringify(source),
        status: 'queued',
        total_rows: input.rows.length,
        idempotency_key: idempotencyKey,
        created_at: at,
        updated_at: at,
        started_at: null,
        completed_at: null,
        canceled_at: null,
        // Its envelopes are made in this mode (run-chunk.ts), whatever the job's context.
        mode: ctx.mode ?? 'live',
      })
      .execute();
    for (let start = 0; start < input.rows.length; start += INSERT_CHUNK) {
      const rows = input.rows.slice(start, start + INSERT_CHUNK).map((row, i) => ({
        bulk_send_id: id,
        row_index: start + i,
        input: JSON.stringify(row),
        external_id: row.external_id ?? null,
        envelope_id: null,
        status: 'pending',
        error: null,
        claimed_by: null,
        claimed_until: null,
        updated_at: at,
      }));
      await trx.insertInto('bulk_send_rows').values(rows).execute();
    }
    await enqueueChunk(trx, accountId, id, 0, now);
  });
  return accepted;
}
