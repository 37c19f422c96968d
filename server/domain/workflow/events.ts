/**
 * The event outbox: every state change writes its event in the same transaction, with a sequence that
 * increases per envelope so receivers can order them. The webhook deliveries are queued with the event
 * (server/webhooks/fan-out.ts) and the webhook worker sends them.
 */
import { randomUUID } from 'node:crypto';
import type { EnvelopeEventType } from '../../../common/events.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { appendAudit } from '../../audit/index.js';
import { queueDeliveries } from '../../webhooks/fan-out.js';

/** An envelope event, from the shared vocabulary (common/events.ts). */
export type EventType = EnvelopeEventType;

export interface EventData {
  envelope: Record<string, unknown>;
  recipient?: Record<string, unknown>;
  [more: string]: unknown;
}

export interface RecordedEvent {
  id: string;
  type: EventType;
  created_at: string;
  account_id: string;
  sequence: number;
  data: EventData;
}

/** Who caused a state change, for the audit trail written with the event. */
export interface Actor {
  readonly type: 'api_key' | 'recipient' | 'system' | 'admin';
  readonly id?: string | null;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Writes the event and the matching hash-chained audit row in the caller's transaction: one place, so no
 * state change has one without the other.
 */
export async function recordEvent(
  trx: Kysely<Database>,
  accountId: string,
  envelopeId: string,
  type: EventType,
  data: EventData,
  at: string,
  actor: Actor = { type: 'system' },
): Promise<RecordedEvent> {
  const { events_seq: sequence } = await trx
    .updateTable('envelopes')
    .set((eb) => ({ events_seq: eb('events_seq', '+', 1) }))
    .where('id', '=', envelopeId)
    .returning('events_seq')
    .executeTakeFirstOrThrow();
  const event: RecordedEvent = { id: randomUUID(), type, created_at: at, account_id: accountId, sequence, data };
  await trx
    .insertInto('events')
    .values({
      id: event.id,
      account_id: accountId,
      envelope_id: envelopeId,
      type,
      sequence,
      payload: JSON.stringify(event),
      created_at: at,
    })
    .execute();
  // The webhook deliveries of the event, in the same transaction: a committed event is always queued.
  await queueDeliveries(trx, {
    id: event.id,
    account_id: accountId,
    envelope_id: envelopeId,
    type,
    sequence,
    created_at: at,
  });
  await appendAudit(trx, {
    envelopeId,
    accountId,
    actorType: actor.type,
    actorId: actor.id ?? null,
    action: type,
    details: { event_id: event.id, ...(actor.details ?? {}) },
    at,
  });
  return event;
}
