/** POST /bulk-sends and the batch resources (issue 13). Row problems are answered as invalid_rows by index. */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { RecipientBody } from './envelopes.js';

export const BULK_SEND_STATUSES = ['queued', 'running', 'completed', 'completed_with_errors', 'canceled'] as const;
export const BULK_ROW_STATUSES = ['pending', 'created', 'sent', 'failed', 'canceled'] as const;

export const BulkRowBody = Type.Object({
  external_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: "your reference for this row's envelope; unique per account and within the batch",
    }),
  ),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "default: the source's title" })),
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  metadata: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'free-form JSON object, at most 16 KiB',
    }),
  ),
  recipients: Type.Array(RecipientBody, {
    minItems: 1,
    maxItems: 100,
    description:
      "one for each recipient of the source (by sequence, then order); role and signature_method default to the source recipient's",
  }),
  field_values: Type.Optional(
    Type.Record(
      Type.String({ minLength: 1, maxLength: 255 }),
      Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]),
      {
        description: 'pre-assigned values by field label (envelope source) or field_key/label (template source)',
      },
    ),
  ),
});
export type BulkRowBody = Static<typeof BulkRowBody>;

export const BulkSendBody = Type.Object({
  source_envelope_id: Type.Optional(Uuid),
  source_template_id: Type.Optional(Uuid),
  template_version: Type.Optional(
    Type.Integer({ minimum: 1, description: 'with source_template_id; default the latest version' }),
  ),
  rows: Type.Array(BulkRowBody, { minItems: 1, description: 'at most MOHAR_BULK_MAX_ROWS (default 10,000)' }),
});
export type BulkSendBody = Static<typeof BulkSendBody>;

export const BulkSendAccepted = Type.Object({
  bulk_send_id: Uuid,
  status: Type.Literal('queued'),
  total_rows: Type.Integer(),
  created_at: Type.String(),
});

export const BulkRowFailure = Type.Object({
  row_index: Type.Integer(),
  external_id: Nullable(Type.String()),
  envelope_id: Nullable(Uuid),
  code: Type.String(),
  message: Type.String(),
});

export const BulkSendResponse = Type.Object({
  bulk_send_id: Uuid,
  status: StringEnum(BULK_SEND_STATUSES),
  source: Type.Object({
    kind: StringEnum(['envelope', 'template'] as const),
    id: Uuid,
    version: Nullable(Type.Integer()),
  }),
  counts: Type.Object({
    total: Type.Integer(),
    created: Type.Integer({ description: 'rows whose envelope exists' }),
    sent: Type.Integer(),
    failed: Type.Integer(),
    canceled: Type.Integer(),
    pending: Type.Integer(),
  }),
  failures: Type.Array(BulkRowFailure, { description: 'every failed row with its reason (GET /bulk-sends/{id} only)' }),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  canceled_at: Nullable(Type.String()),
});

export const BulkSendListResponse = Type.Object({
  bulk_sends: Type.Array(Type.Omit(BulkSendResponse, ['failures'])),
  next_cursor: Nullable(Type.String({ description: 'pass as ?cursor= for the next page; null on the last' })),
});

export const BulkEnvelopeItem = Type.Object({
  row_index: Type.Integer(),
  envelope_id: Nullable(Uuid),
  external_id: Nullable(Type.String()),
  status: StringEnum(BULK_ROW_STATUSES),
  envelope_status: Nullable(Type.String()),
  error: Nullable(Type.String()),
});

export const BulkEnvelopesResponse = Type.Object({
  envelopes: Type.Array(BulkEnvelopeItem),
  next_cursor: Nullable(Type.String({ description: 'pass as ?cursor= for the next page; null on the last' })),
});

export const BulkSendParams = Type.Object({ id: Uuid });
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

/** POST /bulk-sends/validate: the body was checked like POST /bulk-sends and nothing was queued. */
export const BulkSendValidated = Type.Object({
  valid: Type.Literal(true),
  total_rows: Type.Integer(),
});

export const SourceFormatQuery = Type.Object({
  source_envelope_id: Type.Optional(Uuid),
  source_template_id: Type.Optional(Uuid),
  template_version: Type.Optional(
    Type.Integer({ minimum: 1, description: 'with source_template_id; default the latest version' }),
  ),
});

export const SourceFormatResponse = Type.Object({
  source: Type.Object({
    kind: StringEnum(['envelope', 'template'] as const),
    id: Uuid,
    version: Nullable(Type.Integer()),
    title: Type.String(),
  }),
  recipient_slots: Type.Array(
    Type.Object({
      slot: Type.Integer({
        minimum: 1,
        description:
          'the <n> of the CSV columns recipient_<n>_name, recipient_<n>_email, …; rows give one recipient per slot, in this order',
      }),
      label: Nullable(
        Type.String({ description: "the source recipient's name or the template role's label (a hint)" }),
      ),
      role: Type.String(),
      signature_method: Type.String(),
      sequence: Type.Integer(),
      role_key: Nullable(Type.String()),
    }),
  ),
  merge_fields: Type.Array(
    Type.Object({
      key: Type.String({
        description: 'the field_values key (CSV column field.<key>): the template field_key, else the label',
      }),
      aliases: Type.Array(Type.String(), {
        description: "other keys naming the same field (a template field's label)",
      }),
      label: Nullable(Type.String()),
      type: StringEnum(['text', 'checkbox', 'number', 'date', 'dropdown', 'radio'] as const),
      field_type: Type.Integer(),
      slot: Type.Integer({ minimum: 1, description: 'the recipient slot the field belongs to' }),
      required: Type.Boolean(),
      options: Nullable(Type.Array(Type.String())),
    }),
  ),
  columns: Type.Array(Type.String(), { description: 'the CSV header of sample_csv' }),
  sample_csv: Type.String({ description: 'a header line and one example line (CRLF line ends)' }),
});
