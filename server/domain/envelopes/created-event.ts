/**
 * `envelope.created`, the first event of every envelope (POST /envelopes, template instantiation, bulk send
 * rows, the legacy create): written by createEnvelope in the commit that creates the envelope, through the
 * same outbox as the workflow's events (events table, webhook deliveries), with sequence 1. Its audit row is
 * the envelope's first one (action envelope.created), so it costs one event row and one INSERT … SELECT
 * that queues a delivery only when the account has a webhook.
 */
import type { EnvelopeEventType } from '../../../common/events.js';
import type { EventsTable } from '../../storage/schema.js';
import type { AccountDelivery } from '../../webhooks/fan-out.js';
import { newId } from '../ids.js';
import { envelopeSummary } from '../workflow/summaries.js';
import type { EnvelopeRow } from './views.js';

export const CREATED_EVENT = 'envelope.created' satisfies EnvelopeEventType;

export interface CreatedEvent {
  readonly row: EventsTable;
  readonly delivery: AccountDelivery;
}

export function createdEvent(envelope: EnvelopeRow): CreatedEvent {
  // Time-ordered like the envelope's own id: the events table's indexes are appended to, not split.
  const id = newId();
  const at = envelope.created_at;
  const payload = {
    id,
    type: CREATED_EVENT,
    created_at: at,
    account_id: envelope.account_id,
    sequence: 1,
    data: { envelope: envelopeSummary(envelope) },
  };
  return {
    row: {
      id,
      account_id: envelope.account_id,
      envelope_id: envelope.id,
      type: CREATED_EVENT,
      sequence: 1,
      payload: JSON.stringify(payload),
      created_at: at,
    },
    delivery: {
      delivery_id: newId(),
      event_id: id,
      account_id: envelope.account_id,
      envelope_id: envelope.id,
      sequence: 1,
      event_type: CREATED_EVENT,
      at,
    },
  };
}
