/**
 * The envelope events Mohar records and delivers to webhooks ("noun.verb"): one list for the server
 * (server/domain/workflow/events.ts, the OpenAPI `webhooks`) and the console's delivery-log filter.
 * Template and bulk-send events are listed beside their writers (server/domain/templates, server/domain/bulk).
 * A leaf module: it imports nothing.
 */
export const ENVELOPE_EVENT_TYPES = [
  // Written by createEnvelope itself, with sequence 1 (envelopes/created-event.ts); the others by recordEvent.
  'envelope.created',
  'envelope.sent',
  'recipient.viewed',
  'recipient.signed',
  'recipient.approved',
  'recipient.reviewed',
  'recipient.declined',
  'envelope.completed',
  'envelope.declined',
  'envelope.voided',
  'envelope.expired',
  // Retention deleted the documents of a finished envelope (server/domain/retention/purge-envelope.ts).
  'envelope.purged',
] as const;

export type EnvelopeEventType = (typeof ENVELOPE_EVENT_TYPES)[number];
