/**
 * The events Mohar records and delivers to webhooks ("noun.verb"): the one list of each family, for the server
 * (the writers, the OpenAPI `webhooks` and the payload's `type` enum in server/http/schemas/webhooks.ts) and the
 * console's delivery-log filter. The envelope audit trail has its own, larger vocabulary (common/audit-actions.ts),
 * which contains every envelope event: recordEvent writes each event as an audit row too.
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

/** A template changed (server/domain/templates/store.ts, recordChange): the template's own outbox events. */
export const TEMPLATE_EVENT_TYPES = [
  'template.created',
  'template.updated',
  'template.archived',
  'template.restored',
] as const;
export type TemplateEventType = (typeof TEMPLATE_EVENT_TYPES)[number];

/** A bulk send batch finished (server/domain/bulk/finish-batch.ts). */
export const BULK_SEND_EVENT_TYPES = ['bulk_send.completed', 'bulk_send.failed'] as const;
export type BulkSendEventType = (typeof BULK_SEND_EVENT_TYPES)[number];

/** The developer portal's test delivery (server/webhooks/send-test-event.ts): it carries no envelope. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Every event a webhook may receive, in the order of the OpenAPI `webhooks`. */
export const WEBHOOK_EVENT_TYPES = [
  ...ENVELOPE_EVENT_TYPES,
  ...TEMPLATE_EVENT_TYPES,
  ...BULK_SEND_EVENT_TYPES,
  TEST_EVENT_TYPE,
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
