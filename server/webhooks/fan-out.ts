/**
 * From the event outbox to deliveries, in the event's own transaction: every event recorded gets one
 * delivery row per endpoint that wants it (the account's active endpoint, plus endpoints bound to the
 * envelope for that event type). A rollback leaves neither; a commit leaves both, so no crash between
 * "event recorded" and "delivery queued" can lose an event. Accounts without a webhook pay one indexed
 * lookup per event.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { MAX_ATTEMPTS } from './schedule.js';
import { announceDeliveries } from './signal.js';

export interface OutboxEvent {
  readonly id: string;
  readonly account_id: string;
  readonly envelope_id: string | null;
  readonly type: string;
  readonly sequence: number;
  readonly created_at: string;
}

/** Queues the event for every endpoint that wants it; returns the delivery ids. */
export async function queueDeliveries(trx: Kysely<Database>, event: OutboxEvent): Promise<string[]> {
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('status', '=', 'active')
    .where((eb) => {
      const own = eb.and([eb('account_id', '=', event.account_id), eb('kind', '=', 'account')]);
      if (event.envelope_id === null) return own;
      const bound = eb('id', 'in', eb.selectFrom('webhook_bindings').select('endpoint_id').where('envelope_id', '=', event.envelope_id).where('event_type', 'in', [event.type, '*']));
      return eb.or([own, bound]);
    })
    .execute();
  return queueFor(trx, event, endpoints.map((e) => e.id));
}

/** Queues the event for exactly these endpoints (test events, sandbox events). */
export async function queueFor(trx: Kysely<Database>, event: OutboxEvent, endpointIds: readonly string[]): Promise<string[]> {
  if (endpointIds.length === 0) return [];
  const rows = endpointIds.map((endpointId) => ({
    id: randomUUID(),
    event_id: event.id,
    endpoint_id: endpointId,
    account_id: event.account_id,
    envelope_id: event.envelope_id,
    sequence: event.sequence,
    event_type: event.type,
    status: 'pending' as const,
    attempts: 0,
    max_attempts: MAX_ATTEMPTS,
    next_attempt_at: event.created_at,
    lease_owner: null,
    lease_expires_at: null,
    last_status_code: null,
    last_error: null,
    created_at: event.created_at,
    updated_at: event.created_at,
    delivered_at: null,
  }));
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await announceDeliveries(trx);
  return rows.map((r) => r.id);
}
