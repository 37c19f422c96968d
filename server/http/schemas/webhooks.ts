/** Route schemas of webhook registration and the developer portal, and the event payload for OpenAPI `webhooks`. */
import { Type } from 'typebox';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../../common/events.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../common/webhook-retries.js';
import { DELIVERY_STATUSES } from '../../domain/webhooks/views.js';
import { Nullable, StringEnum, Uuid } from './common.js';

const DateTime = Type.String({ format: 'date-time' });

export const WebhookSaveBody = Type.Object({
  webhook_url: Type.String({
    format: 'uri',
    minLength: 1,
    maxLength: 2048,
    description:
      'https URL of your receiver, on a public address (private and loopback targets and plain http only with MOHAR_WEBHOOK_ALLOW_PRIVATE=1)',
  }),
});

const EndpointProperties = {
  id: Uuid,
  kind: StringEnum(['account', 'sandbox'] as const),
  webhook_url: Type.String(),
  status: StringEnum(['active', 'disabled'] as const, {
    description: 'disabled after the receiver answered 410 Gone; saving the webhook again enables it',
  }),
  disabled_reason: Nullable(Type.String()),
  disabled_at: Nullable(DateTime),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'while a rotated-out secret still signs alongside the current one: until when',
    }),
  ),
  created_at: DateTime,
  updated_at: DateTime,
};

export const WebhookEndpointResponse = Type.Object(EndpointProperties);

export const WebhookPolicyResponse = Type.Object({
  allow_private: Type.Boolean({
    description:
      'true when this server is configured with MOHAR_WEBHOOK_ALLOW_PRIVATE=1: plain http and loopback or private-network receivers are accepted; false: https to a public address only',
  }),
});

export const WebhookSaveResponse = Type.Object({
  ...EndpointProperties,
  webhook_secret: Type.String({
    description:
      'the signing secret: shown here once (reveal it later in the developer portal). Keep it on your server',
  }),
});

export const WebhookSecretResponse = Type.Object({
  webhook_secret: Type.String({ description: 'the current signing secret' }),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'after a rotation: until when the old secret also signs (X-Service-Signature then carries both)',
    }),
  ),
});

export const RotateSecretBody = Type.Object(
  {
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 720,
        description:
          'how long the old secret keeps signing alongside the new one; default MOHAR_WEBHOOK_SECRET_OVERLAP_HOURS (24)',
      }),
    ),
  },
  { description: 'optional' },
);

export const TestEventResponse = Type.Object({
  event_id: Uuid,
  delivery_id: Uuid,
  type: Type.Literal(TEST_EVENT_TYPE),
});

export const DeliveryItem = Type.Object({
  id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  envelope_id: Nullable(Type.String()),
  sequence: Type.Integer({ description: "the event's per-envelope sequence (0 for events outside an envelope)" }),
  endpoint_id: Uuid,
  webhook_url: Type.String({ description: 'the URL the endpoint has now' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description:
      'pending (not tried yet, or waiting for a retry), delivering (an attempt in flight), succeeded, dead (all attempts failed), paused (the endpoint is disabled)',
  }),
  success: Type.Boolean(),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'when pending: the next attempt' })),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: DateTime,
  updated_at: DateTime,
  delivered_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'when an attempt last succeeded. Kept when the delivery is redelivered: a delivery that is pending, delivering or dead with delivered_at set is a redelivery of an event the receiver already had',
    }),
  ),
});

export const AttemptItem = Type.Object({
  id: Uuid,
  delivery_id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  webhook_url: Type.String({ description: 'the URL this attempt went to' }),
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  status_code: Nullable(Type.Integer({ description: 'null when no HTTP answer came' })),
  success: Type.Boolean(),
  duration_ms: Type.Integer(),
  error: Nullable(
    Type.String({
      description: 'why it failed (HTTP status and the start of the body, refused address, timeout…), truncated',
    }),
  ),
  started_at: DateTime,
  finished_at: DateTime,
});

const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, default 50' })),
  before: Type.Optional(Type.String({ format: 'uuid', description: 'paging: next_before of the previous page' })),
  event_type: Type.Optional(Type.String({ maxLength: 100, description: 'only this event type' })),
  success: Type.Optional(Type.Boolean({ description: 'true: succeeded only; false: all others' })),
};

export const DeliveriesQuery = Type.Object({
  ...Paging,
  status: Type.Optional(
    StringEnum(DELIVERY_STATUSES, { description: 'only deliveries in this state (dead: the dead letters)' }),
  ),
});

export const AttemptsQuery = Type.Object({
  ...Paging,
  delivery_id: Type.Optional(Uuid),
  event_id: Type.Optional(Uuid),
});

export const DeliveriesResponse = Type.Object({
  items: Type.Array(DeliveryItem, { description: 'newest first' }),
  next_before: Nullable(Type.String({ description: 'pass as before for the next page; null on the last page' })),
});

export const AttemptsResponse = Type.Object({
  items: Type.Array(AttemptItem, { description: 'newest first' }),
  next_before: Nullable(Type.String({ description: 'pass as before for the next page; null on the last page' })),
});

export const DeliveryParams = Type.Object({ delivery_id: Uuid });

// The event payload, as delivered (and shown with a delivery).
export const WebhookEventPayload = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'the event id; the same in X-Service-Event-Id, stable across retries',
  }),
  type: StringEnum(WEBHOOK_EVENT_TYPES),
  created_at: Type.String({ format: 'date-time', description: 'when the event happened' }),
  account_id: Uuid,
  sequence: Type.Integer({
    description: 'increases by one per event of an envelope; order by it (0 for webhook.test)',
  }),
  data: Type.Object(
    {
      envelope: Type.Optional(
        Type.Object(
          {
            id: Uuid,
            title: Type.String(),
            status: Type.String(),
            external_id: Nullable(Type.String()),
            metadata: Type.Unknown(),
            template_id: Type.Optional(Uuid),
            template_version: Type.Optional(
              Type.Integer({
                description: 'present when the envelope was instantiated from a template: the version it is pinned to',
              }),
            ),
          },
          { additionalProperties: true },
        ),
      ),
      template: Type.Optional(
        Type.Object(
          {
            id: Uuid,
            name: Type.String(),
            version: Type.Integer({ description: 'the latest version after the change' }),
            archived: Type.Boolean(),
            archived_at: Nullable(Type.String({ format: 'date-time' })),
          },
          { description: 'template.* events: the template after the change' },
        ),
      ),
      changes: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'template.created and template.updated: what the new version changed (roles, fields, documents, settings), as in GET /templates/{id}/versions',
          },
        ),
      ),
      bulk_send: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'bulk_send.completed and bulk_send.failed: id, status (completed or completed_with_errors), counts (total, created, sent, failed, canceled, pending), completed_at',
          },
        ),
      ),
      failures: Type.Optional(
        Type.Array(Type.Object({}, { additionalProperties: true }), {
          description:
            'bulk_send.completed and bulk_send.failed: the first 100 failed rows (row_index, external_id, envelope_id, code, message)',
        }),
      ),
      reasons: Type.Optional(
        Type.Array(Type.Object({ code: Type.String(), count: Type.Integer() }), {
          description: 'bulk_send.failed: how many rows failed with each error code, most frequent first',
        }),
      ),
      failures_truncated: Type.Optional(
        Type.Boolean({
          description: 'bulk_send.failed: more rows failed than failures lists (GET /bulk-sends/{id} has them all)',
        }),
      ),
      recipient: Type.Optional(
        Type.Object(
          {
            recipient_id: Uuid,
            name: Type.String(),
            email: Type.String(),
            role: Type.String(),
            signature_method: Type.String(),
            sequence: Type.Integer(),
            status: Type.String(),
          },
          { additionalProperties: true },
        ),
      ),
      documents: Type.Optional(
        Type.Array(
          Type.Object({
            document_id: Uuid,
            sha256: Type.String({ description: 'SHA-256 (hex) of the final signed PDF' }),
            download_url: Type.String({ description: 'GET with your X-Api-Key' }),
          }),
          { description: 'envelope.completed: where to download each final document, and its SHA-256' },
        ),
      ),
      pades_level: Type.Optional(Nullable(Type.String({ description: 'envelope.completed: the PAdES level reached' }))),
      reason: Type.Optional(Nullable(Type.String({ description: 'declined and voided events' }))),
    },
    { additionalProperties: true },
  ),
});

export const DeliveryDetailResponse = Type.Object({
  ...DeliveryItem.properties,
  payload: Type.Unsafe<Record<string, unknown> | null>({
    anyOf: [WebhookEventPayload, { type: 'null' }],
    description: 'the event as delivered',
  }),
  attempt_log: Type.Array(AttemptItem, { description: 'oldest first' }),
});

const DELIVERY_HEADERS = [
  {
    name: 'X-Service-Timestamp',
    description: 'Unix seconds at sending; part of the signed string. Reject it when far from your clock (300 s).',
  },
  {
    name: 'X-Service-Signature',
    description:
      'sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>; during a secret rotation several comma-separated candidates: accept if any matches',
  },
  {
    name: 'X-Service-Event-Id',
    description: 'the event id, stable across retries: reject (answer 2xx to) ids you have seen',
  },
  { name: 'X-Service-Event-Type', description: 'the event type (also in the body)' },
  { name: 'X-Service-Delivery-Attempt', description: '1 for the first attempt' },
];

/** OpenAPI 3.1 `webhooks`: one entry per event type, all with the same payload schema and headers. */
export function webhookOpenApi(): Record<string, unknown> {
  const schedule = RETRY_DELAYS_SECONDS.map((s) =>
    s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`,
  ).join(', ');
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: webhookOperationId(type),
          tags: ['webhooks'],
          summary: `${type} delivered to your webhook_url`,
          // Mohar calls the receiver: no scheme of this document applies; X-Service-Signature is the proof.
          security: [],
          description: `Signed delivery (see docs/webhooks.md). Answer 2xx within 10 s. Anything else is retried, ${MAX_ATTEMPTS} attempts in all, waiting ${schedule} (±20 %); 410 Gone disables the webhook.`,
          parameters: DELIVERY_HEADERS.map((h) => ({
            in: 'header',
            name: h.name,
            required: !h.name.endsWith('Type') && !h.name.endsWith('Attempt'),
            description: h.description,
            schema: { type: 'string' },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: WebhookEventPayload } } },
          responses: {
            200: { description: 'received (any 2xx)' },
            410: { description: 'Gone: Mohar disables the webhook' },
          },
        },
      },
    ]),
  );
}

/**
 * The operationId of an event's delivery, derived from its stable event type (so it never changes while the
 * event keeps its name): envelope.created → onEnvelopeCreated, bulk_send.failed → onBulkSendFailed.
 */
export function webhookOperationId(type: string): string {
  const words = type.split(/[._]/);
  return `on${words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`;
}
