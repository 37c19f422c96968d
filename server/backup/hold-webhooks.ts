/**
 * After a restore: webhook deliveries the backup shows unfinished (pending, or an attempt in flight) may well have
 * been delivered by the original installation after the snapshot; nothing in the backup can tell. Sending them
 * again would give receivers the same delivery twice, so they are held: marked `dead` with a reason that says so,
 * which the worker never claims and the developer portal shows. The integrator (or operator) redelivers the ones
 * the receiver did not get (`POST /webhook/deliveries/{id}/redeliver/`). Events recorded after the restore are
 * new deliveries and go out as usual.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export const HELD_BY_RESTORE =
  'held by mohar restore: the backup shows this delivery unfinished, and the original installation may have delivered it after the backup; redeliver it if the receiver did not get it';

/** Holds every unfinished delivery; returns how many. */
export async function holdUnfinishedWebhooks(db: Kysely<Database>, now: Date): Promise<number> {
  const at = now.toISOString();
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'dead', lease_owner: null, lease_expires_at: null, last_error: HELD_BY_RESTORE, updated_at: at })
    .where('status', 'in', ['pending', 'delivering'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
