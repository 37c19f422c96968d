/**
 * The end of a batch: when no row is pending or being built, the batch becomes completed (or
 * completed_with_errors) once, and its events go to the outbox in the same transaction: bulk_send.completed
 * always (sequence 1), and bulk_send.failed (sequence 2) when rows failed, with a summary of why. A batch
 * finished by another chunk, or canceled, gets nothing here.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { queueDeliveries } from '../../webhooks/fan-out.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { BulkSendEventType } from '../../../common/events.js';
import { failuresOf, rowCounts, type BulkFailure } from './read-bulk-sends.js';

/** Failed rows listed in an event; all of them are in GET /bulk-sends/{id}. */
export const EVENT_FAILURES = 100;
const UNFINISHED = ['pending', 'created'];

async function writeEvent(
  trx: Kysely<Database>,
  accountId: string,
  type: BulkSendEventType,
  sequence: number,
  data: Record<string, unknown>,
  at: string,
): Promise<void> {
  const id = randomUUID();
  const event = { id, type, created_at: at, account_id: accountId, sequence, data };
  await trx
    .insertInto('events')
    .values({
      id,
      account_id: accountId,
      envelope_id: null,
      type,
      sequence,
      payload: JSON.stringify(event),
      created_at: at,
    })
    .execute();
  await queueDeliveries(trx, { id, account_id: accountId, envelope_id: null, type, sequence, created_at: at });
}

/** How many failed rows per error code, most frequent first. */
function reasonsOf(failures: readonly BulkFailure[]): { code: string; count: number }[] {
  const byCode = new Map<string, number>();
  for (const f of failures) byCode.set(f.code, (byCode.get(f.code) ?? 0) + 1);
  return [...byCode]
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

export async function finishIfDone(ctx: Context, batchId: string, accountId: string): Promise<void> {
  const left = await ctx.db
    .selectFrom('bulk_send_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('bulk_send_id', '=', batchId)
    .where('status', 'in', UNFINISHED)
    .executeTakeFirstOrThrow();
  if (Number(left.n) > 0) return;
  const counts = await rowCounts(ctx.db, batchId);
  const at = iso(ctx.now());
  const status = counts.failed > 0 ? 'completed_with_errors' : 'completed';
  await ctx.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('bulk_sends')
      .set({ status, completed_at: at, updated_at: at })
      .where('id', '=', batchId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return; // finished by another chunk, or canceled
    const failures = counts.failed > 0 ? await failuresOf(trx, batchId) : [];
    const bulkSend = { id: batchId, status, counts, completed_at: at };
    await writeEvent(
      trx,
      accountId,
      'bulk_send.completed',
      1,
      { bulk_send: bulkSend, failures: failures.slice(0, EVENT_FAILURES) },
      at,
    );
    if (failures.length === 0) return;
    await writeEvent(
      trx,
      accountId,
      'bulk_send.failed',
      2,
      {
        bulk_send: bulkSend,
        reasons: reasonsOf(failures),
        failures: failures.slice(0, EVENT_FAILURES),
        failures_truncated: failures.length > EVENT_FAILURES,
      },
      at,
    );
  });
}
