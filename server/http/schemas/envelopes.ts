import { Type, type Static } from 'typebox';
import { ROLES, ROUTING_ORDERS, SIGNATURE_METHODS } from '../../domain/envelopes/model.js';
import { CreatedBy, Nullable, StringEnum, Uuid } from './common.js';
import { DocumentBody } from './documents.js';
import { EnvelopeReminders } from './reminders.js';

export const RecipientBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: Type.Optional(StringEnum(ROLES, { description: 'default signer' })),
  signature_method: Type.Optional(
    StringEnum(SIGNATURE_METHODS, { description: 'default electronic for signers, review for others' }),
  ),
  sequence: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'routing step; equal numbers act in parallel' }),
  ),
});

/** How recipients are reached (issue 16 point 5); the legacy API's is_mail_required: false is "none". */
export const Delivery = StringEnum(['email', 'none'] as const, {
  description:
    'email (default): Mohar mails each recipient their invitation, turn, reminder and completion mail with a personal link. ' +
    'none: Mohar sends the recipients no mail at all (no invitation, reminder or completion mail); you hand out the links from POST /envelopes/{id}/signing-sessions (headless).',
});

export const EnvelopeCreateBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 500 }),
  external_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'your reference; unique per account' }),
  ),
  routing_order: Type.Optional(StringEnum(ROUTING_ORDERS, { description: 'default sequential' })),
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  expire_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  metadata: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'free-form JSON object, at most 16 KiB',
    }),
  ),
  recipients: Type.Optional(Type.Array(RecipientBody, { maxItems: 100 })),
  delivery: Type.Optional(Delivery),
  reminders: Type.Optional(EnvelopeReminders),
});
export type EnvelopeCreateBody = Static<typeof EnvelopeCreateBody>;

export const RecipientResponse = Type.Object({
  recipient_id: Uuid,
  name: Type.String(),
  email: Type.String(),
  role: Type.String(),
  signature_method: Type.String(),
  sequence: Type.Integer(),
  status: Type.String({ description: 'created while the envelope is a draft' }),
});

export const FieldResponse = Type.Object({
  field_id: Uuid,
  recipient_id: Uuid,
  field_type: Type.Integer(),
  page_number: Type.Integer(),
  x: Type.Number(),
  y: Type.Number(),
  width: Type.Number(),
  height: Type.Number(),
  label: Nullable(Type.String()),
  value: Nullable(Type.String()),
  options: Nullable(Type.Array(Type.String())),
  pdf_signature_field: Nullable(Type.String()),
  required: Type.Boolean(),
  editable: Type.Boolean({
    description: 'the signer may change the pre-assigned value; false: it is read-only for them',
  }),
});

export const EnvelopeResponse = Type.Object({
  id: Uuid,
  title: Type.String(),
  status: Type.String({ description: 'draft, sent, completed, declined, voided or expired' }),
  external_id: Nullable(Type.String()),
  routing_order: Type.String(),
  message: Nullable(Type.String()),
  expire_in_days: Nullable(Type.Integer()),
  redirect_url: Nullable(Type.String()),
  metadata: Nullable(Type.Object({}, { additionalProperties: true })),
  recipients: Type.Array(RecipientResponse),
  documents: Type.Array(
    Type.Intersect([
      DocumentBody,
      Type.Object({
        fields: Type.Array(FieldResponse),
        certified: Nullable(
          Type.Boolean({
            description:
              'certified at send (DocMDP P=2 by the installation seal: only form filling and signing allowed afterwards); null while a draft',
          }),
        ),
        certification_skipped: Nullable(
          Type.String({
            description:
              'why the document was not certified at send, e.g. "the uploaded PDF already carries a signature"',
          }),
        ),
        final_sha256: Nullable(
          Type.String({
            pattern: '^[0-9a-f]{64}$',
            description:
              'SHA-256 of the signed document (the bytes of GET …/download) once the envelope is completed; it remains after retention deleted the bytes',
          }),
        ),
      }),
    ]),
  ),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  status_reason: Nullable(Type.String({ description: 'why it was voided or declined' })),
  pades_level: Nullable(
    Type.String({ description: 'B-B, B-T, B-LT or B-LTA: the weakest signature of the completed documents' }),
  ),
  template_id: Nullable(Uuid),
  template_version: Nullable(
    Type.Integer({
      description: 'the template version the envelope is pinned to (POST /templates/{template_id}/instantiate)',
    }),
  ),
  bulk_send_id: Nullable(Uuid),
  row_index: Nullable(
    Type.Integer({ description: 'the 0-based row of the bulk send this envelope was made for (POST /bulk-sends)' }),
  ),
  created_by: CreatedBy,
  delivery: Delivery,
  reminders: EnvelopeReminders,
  mode: StringEnum(['live', 'test'] as const, {
    description:
      'test: made with a qsk_test_ key (no mail delivered, TEST mark, test seal; seen only by test keys); live otherwise',
  }),
  purged_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        "when the retention policy deleted the envelope's documents (event envelope.purged); downloads then answer 410 documents_purged, while the audit trail, the documents' SHA-256 and the certificate of completion remain. null while they are kept",
    }),
  ),
  legal_hold: Nullable(
    Type.Object(
      {
        placed_at: Type.String({ format: 'date-time' }),
        placed_by: Nullable(Type.String({ description: '"user:<id>" (a console login) or "api_key:<id>"' })),
        reason: Nullable(Type.String()),
      },
      {
        description:
          'set by PUT /envelopes/{id}/legal-hold: while held, the retention policy never deletes the documents; null: no hold',
      },
    ),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const LegalHoldBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'why the envelope is held (a case, an inquiry); recorded in the audit trail',
    }),
  },
  { additionalProperties: false, examples: [{ reason: 'Dispute 2026-114: keep until the court decides' }] },
);

export const EnvelopeStatusResponse = Type.Object({
  envelope_id: Uuid,
  status: Type.String(),
  recipients: Type.Array(RecipientResponse),
  updated_at: Type.String({ format: 'date-time' }),
});

export const EnvelopeParams = Type.Object({ id: Uuid });
export const EnvelopeDocumentParams = Type.Object({ id: Uuid, document_id: Uuid });
