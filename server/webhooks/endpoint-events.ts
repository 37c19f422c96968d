/**
 * Events that do not come from an envelope's workflow and go to one endpoint only: the portal's
 * `webhook.test`, and events the sandbox emits for its own receivers. Written to the same outbox (the
 * events table) and delivered under the same signing and retry rules.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { queueFor } from './fan-out.js';

export interface EndpointEventInput {
  readonly endpointId: string;
  readonly accountId: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  /** The envelope the event is about, if any (its id is carried, the envelope's own sequence is not used). */
  readonly envelopeId?: string | null;
  /** Default 0: outside any envelope's sequence. */
  readonly sequence?: number;
  readonly at: string;
}

export interface EndpointEvent {
  readonly eventId: string;
  readonly deliveryId: string;
  readonly payload: {
    id: string;
    type: string;
    created_at: string;
    account_id: string;
    sequence: number;
    data: Record<string, unknown>;
  };
}

/** Records the event and its one delivery in the caller's transaction. */
export async function recordEndpointEvent(trx: Kysely<Database>, input: EndpointEventInput): Promise<EndpointEvent> {
  const id = randomUUID();
  const sequence = input.sequence ?? 0;
  const payload = {
    id,
    type: input.type,
    created_at: input.at,
    account_id: input.accountId,
    sequence,
    data: input.data,
  };
  // The events table keeps (envelope_id, sequence) unique, so only envelope-less events are stored with an envelope id
  // of null.
  await trx
    .insertInto('events')
    .values({
      id,
      account_id: input.accountId,
      envelope_id: null,
      type: input.type,
      sequence,
      payload: JSON.stringify(payload),
      created_at: input.at,
    })
    .execute();
  const [deliveryId] = await queueFor(
    trx,
    {
      id,
      account_id: input.accountId,
      envelope_id: input.envelopeId ?? null,
      type: input.type,
      sequence,
      created_at: input.at,
    },
    [input.endpointId],
  );
  return { eventId: id, deliveryId: deliveryId!, payload };
}
