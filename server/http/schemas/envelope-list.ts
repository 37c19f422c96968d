/** GET /envelopes: query and answer. */
import { Type, type Static } from 'typebox';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../../domain/envelopes/list-envelopes.js';
import { ENVELOPE_STATUSES } from '../../domain/workflow/states.js';
import { CreatedBy, Nullable, StringEnum, Uuid } from './common.js';

const DateOrDateTime = (description: string) =>
  Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], { description });

export const EnvelopeListQuery = Type.Object({
  status: Type.Optional(
    Type.Array(StringEnum(ENVELOPE_STATUSES), {
      maxItems: ENVELOPE_STATUSES.length,
      description: 'one or several: ?status=sent&status=completed',
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'search title, external_id, recipient names and e-mails: case-insensitive, matching from the start of a word ("asha" finds "Asha Rao" and "asha.rao@example.com"; "rao@ex" finds the e-mail)',
    }),
  ),
  created_from: Type.Optional(DateOrDateTime('created at or after: a date (from 00:00 UTC that day) or a date-time')),
  created_to: Type.Optional(
    DateOrDateTime('created at or before: a date (the whole UTC day) or a date-time (that instant included)'),
  ),
  template_id: Type.Optional(Uuid),
  bulk_send_id: Type.Optional(Uuid),
  mine: Type.Optional(
    Type.Boolean({
      description:
        'true: only the envelopes the logged-in console user created (a login token only; with an API key 422)',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT })),
  cursor: Type.Optional(Type.String({ maxLength: 500, description: 'next_cursor of the previous page (opaque)' })),
});
export type EnvelopeListQuery = Static<typeof EnvelopeListQuery>;

const RecipientSummary = Type.Object({
  recipient_id: Uuid,
  name: Type.String(),
  email: Type.String(),
  role: Type.String(),
  signature_method: Type.String(),
  sequence: Type.Integer(),
  status: Type.String({
    description: 'created (draft), waiting, active, viewed, signed, approved, reviewed, declined, completed (cc)',
  }),
});

export const EnvelopeSummary = Type.Object({
  id: Uuid,
  title: Type.String(),
  status: Type.String({ description: ENVELOPE_STATUSES.join(', ') }),
  external_id: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  template_id: Nullable(Uuid),
  template_version: Nullable(Type.Integer()),
  bulk_send_id: Nullable(Uuid),
  created_by: CreatedBy,
  recipients: Type.Array(RecipientSummary),
});

export const EnvelopeListResponse = Type.Object(
  {
    envelopes: Type.Array(EnvelopeSummary, { description: 'newest first (created_at, then id)' }),
    next_cursor: Nullable(Type.String({ description: 'pass as ?cursor= for the next page; null on the last' })),
  },
  {
    examples: [
      {
        envelopes: [
          {
            id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f',
            title: 'Lease agreement, flat 4B',
            status: 'sent',
            external_id: 'lease-4b-2026',
            created_at: '2026-11-25T09:00:00.000Z',
            updated_at: '2026-11-25T09:05:00.000Z',
            sent_at: '2026-11-25T09:05:00.000Z',
            completed_at: null,
            expires_at: '2026-12-25T09:05:00.000Z',
            template_id: null,
            template_version: null,
            bulk_send_id: null,
            created_by: { user_id: '0193f0e2-6c1a-7b3e-9d2f-0000000000aa', email: 'meera@example.com' },
            recipients: [
              {
                recipient_id: '0193f0e2-6c1a-7b3e-9d2f-000000000001',
                name: 'Asha Rao',
                email: 'asha.rao@example.com',
                role: 'signer',
                signature_method: 'electronic',
                sequence: 1,
                status: 'signed',
              },
              {
                recipient_id: '0193f0e2-6c1a-7b3e-9d2f-000000000002',
                name: 'Vikram Shah',
                email: 'vikram@example.com',
                role: 'signer',
                signature_method: 'dsc',
                sequence: 2,
                status: 'active',
              },
            ],
          },
        ],
        next_cursor: 'MjAyNi0xMS0yNVQwOTowMDowMC4wMDBafDAxOTNmMGUyLTZjMWEtN2IzZS05ZDJmLTRhNWI2YzdkOGU5Zg',
      },
    ],
  },
);
