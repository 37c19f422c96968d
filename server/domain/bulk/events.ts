/** The outbox events of a bulk send batch (docs/webhooks.md); a leaf, so the webhook schemas can list them. */
export const BULK_SEND_EVENTS = ['bulk_send.completed', 'bulk_send.failed'] as const;
export type BulkSendEvent = (typeof BULK_SEND_EVENTS)[number];
