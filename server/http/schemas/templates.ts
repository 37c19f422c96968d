/** Route schemas of the template calls (issue 12): validation, types and OpenAPI with examples. */
import { Type, type Static, type TSchema } from 'typebox';
import { ROLES, SIGNATURE_METHODS } from '../../domain/envelopes/model.js';
import { TEMPLATE_FORMAT } from '../../domain/templates/model.js';
import { CreatedBy, Nullable, StringEnum, Uuid } from './common.js';
import { Delivery, EnvelopeCreateBody, EnvelopeResponse } from './envelopes.js';
import { FIELD_TYPE_DESCRIPTION } from './fields.js';
import { ReminderSettingsBody } from './reminders.js';
import { MAX_RETENTION_DAYS } from '../../domain/retention/policy.js';

const Key = (description: string) => Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$', description });
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the PDF, lower-case hex' });
/**
 * Optional and nullable, as `type: [T, "null"]` rather than anyOf: one error per bad member, not one per
 * branch (and safe under type coercion, which bodies no longer get: http/validators.ts).
 */
const Opt = <T extends TSchema>(schema: T) => {
  const { type, enum: values } = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Optional(
    Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) }),
  );
};

/** The envelope create body's own member schemas: a template's settings are the defaults of the envelopes it makes. */
const Envelope = EnvelopeCreateBody.properties;

export const TemplateSettingsBody = Type.Object(
  {
    message: Opt(Envelope.message),
    routing_order: Envelope.routing_order,
    expire_in_days: Opt(Envelope.expire_in_days),
    redirect_url: Opt(Envelope.redirect_url),
    metadata: Opt(Envelope.metadata),
    reminders: Envelope.reminders,
    retention_days: Opt(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RETENTION_DAYS,
        description:
          "retention of the envelopes made from it: their documents are purged this many days after they finished, replacing the account's policy (shorter or longer); null or absent: the account's policy (GET {api_base}/account/retention)",
      }),
    ),
  },
  {
    description:
      'default envelope settings, checked by the envelope create rules; an instantiation may override each (reminders: the envelopes made from it get them as their own); unknown members are ignored',
  },
);

/** PATCH: merged member by member, so every member may also be null (removed: the default applies again). */
const TemplateSettingsPatch = Type.Object(
  {
    ...TemplateSettingsBody.properties,
    routing_order: Opt(Envelope.routing_order),
  },
  { description: 'merged member by member into the settings (RFC 7396): null removes a setting (its default applies)' },
);

export const TemplateRoleBody = Type.Object({
  role_key: Key('stable name of the slot, e.g. "buyer"; instantiation maps it to a person'),
  label: Opt(Type.String({ maxLength: 200 })),
  role: Type.Optional(StringEnum(ROLES, { description: 'default signer' })),
  signature_method: Type.Optional(
    StringEnum(SIGNATURE_METHODS, { description: 'default electronic for signers, review for others' }),
  ),
  sequence: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'routing step; default: the order of the list (sequential routing) or 1 (parallel)',
    }),
  ),
});

/** Types only, like the fields endpoint: the layout rules are checked by the domain, every bad field at once. */
export const TemplateFieldBody = Type.Object({
  field_key: Opt(Key('optional stable key for field_values at instantiation; unique in the template')),
  role_key: Type.String({ description: 'the role the field belongs to' }),
  field_type: Type.Integer({ description: FIELD_TYPE_DESCRIPTION }),
  page_number: Type.Optional(Type.Integer({ description: 'starts at 1' })),
  x: Opt(Type.Number()),
  y: Opt(Type.Number()),
  width: Opt(Type.Number()),
  height: Opt(Type.Number()),
  x1: Type.Optional(Type.Number()),
  y1: Type.Optional(Type.Number()),
  x2: Type.Optional(Type.Number()),
  y2: Type.Optional(Type.Number()),
  label: Opt(Type.String({ maxLength: 500 })),
  value: Opt(Type.String({ maxLength: 10_000 })),
  options: Opt(Type.Array(Type.String({ maxLength: 500 }))),
  pdf_signature_field: Opt(Type.String({ maxLength: 1000 })),
  required: Type.Optional(Type.Boolean()),
  editable: Type.Optional(Type.Boolean()),
});

export const TemplateDocumentBody = Type.Object(
  {
    file: Type.Optional(Type.String({ description: 'multipart: the name of the file part holding this PDF' })),
    document_id: Type.Optional(Uuid),
    sha256: Type.Optional(Sha256),
    filename: Type.Optional(Type.String({ maxLength: 255 })),
    content_base64: Type.Optional(Type.String({ description: 'import: the PDF itself' })),
    fields: Type.Optional(Type.Array(TemplateFieldBody, { maxItems: 1000 })),
  },
  {
    description:
      'a PDF named by file part, document_id, sha256 (a document of this account) or content_base64, with its fields',
  },
);

export const TemplateDefinitionBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }),
  description: Opt(Type.String({ maxLength: 10_000 })),
  settings: Type.Optional(TemplateSettingsBody),
  roles: Type.Optional(Type.Array(TemplateRoleBody, { maxItems: 100 })),
  documents: Type.Optional(
    Type.Array(TemplateDocumentBody, {
      maxItems: 20,
      description: 'default (multipart): every file part in order, without fields',
    }),
  ),
});
export type TemplateDefinitionBody = Static<typeof TemplateDefinitionBody>;

export const FromEnvelopeBody = Type.Object({
  source_envelope_id: Uuid,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'default: the envelope title' })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
});

export const ImportBody = Type.Intersect(
  [
    Type.Object({
      format: Type.Literal(TEMPLATE_FORMAT),
      template_id: Type.Optional(Type.String()),
      version: Type.Optional(Type.Integer()),
    }),
    TemplateDefinitionBody,
  ],
  { description: 'a portable template as GET /templates/{id}?include=documents returns it' },
);

export const TemplateCreateJson = Type.Union([FromEnvelopeBody, ImportBody], {
  examples: [
    { source_envelope_id: '01a2016b-feee-792e-b146-7fd0c6edcdb0', name: 'Sale agreement' },
    {
      format: TEMPLATE_FORMAT,
      name: 'Sale agreement',
      settings: { message: 'Please sign', expire_in_days: 14 },
      roles: [
        { role_key: 'seller', label: 'Seller' },
        { role_key: 'buyer', label: 'Buyer' },
      ],
      documents: [
        {
          filename: 'sale.pdf',
          sha256: 'a'.repeat(64),
          content_base64: 'JVBERi0xLjcK…',
          fields: [{ role_key: 'seller', field_type: 1, page_number: 2, x: 72, y: 600, width: 180, height: 50 }],
        },
      ],
    },
  ],
});

/** The multipart create's parts, as documented (the route reads them itself). */
export const TemplateCreateMultipartExample = {
  // An object: the part is JSON text (multipart's default for an object member, RFC 7578 with OpenAPI's encoding).
  template: {
    name: 'Sale agreement',
    settings: { expire_in_days: 14 },
    roles: [
      { role_key: 'seller', label: 'Seller' },
      { role_key: 'buyer', label: 'Buyer' },
      { role_key: 'witness', role: 'cc' },
    ],
    documents: [
      {
        file: 'contract',
        fields: [
          { role_key: 'seller', field_type: 1, page_number: 2, x: 72, y: 600, width: 180, height: 50 },
          {
            field_key: 'price',
            role_key: 'buyer',
            field_type: 10,
            page_number: 1,
            x: 300,
            y: 200,
            width: 120,
            height: 20,
          },
        ],
      },
    ],
  },
  contract: '(the PDF file, application/pdf)',
};

const TemplateFieldView = Type.Object({
  field_key: Nullable(Type.String()),
  role_key: Type.String(),
  field_type: Type.Integer(),
  page_number: Type.Integer(),
  x: Nullable(Type.Number()),
  y: Nullable(Type.Number()),
  width: Nullable(Type.Number()),
  height: Nullable(Type.Number()),
  label: Nullable(Type.String()),
  value: Nullable(Type.String()),
  options: Nullable(Type.Array(Type.String())),
  pdf_signature_field: Nullable(Type.String()),
  required: Type.Boolean(),
  editable: Type.Boolean(),
});

const PORTABLE_EXAMPLE = {
  format: TEMPLATE_FORMAT,
  template_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f',
  version: 2,
  latest_version: 2,
  name: 'Sale agreement',
  description: 'Standard flat sale',
  archived: false,
  archived_at: null,
  created_by: { user_id: '0193f0e2-6c1a-7b3e-9d2f-0000000000aa', email: 'meera@example.com' },
  settings: {
    message: 'Please sign',
    routing_order: 'sequential',
    expire_in_days: 14,
    redirect_url: null,
    metadata: null,
  },
  roles: [
    { role_key: 'seller', label: 'Seller', role: 'signer', signature_method: 'electronic', sequence: 1 },
    { role_key: 'buyer', label: 'Buyer', role: 'signer', signature_method: 'electronic', sequence: 2 },
  ],
  documents: [
    {
      document_id: '0193f0e2-6c1a-7b3e-9d2f-000000000001',
      filename: 'sale.pdf',
      sha256: 'a'.repeat(64),
      size: 48213,
      page_count: 2,
      fields: [
        {
          field_key: null,
          role_key: 'seller',
          field_type: 1,
          page_number: 2,
          x: 72,
          y: 600,
          width: 180,
          height: 50,
          label: null,
          value: null,
          options: null,
          pdf_signature_field: null,
          required: true,
          editable: false,
        },
        {
          field_key: 'price',
          role_key: 'buyer',
          field_type: 10,
          page_number: 1,
          x: 300,
          y: 200,
          width: 120,
          height: 20,
          label: 'Price',
          value: null,
          options: null,
          pdf_signature_field: null,
          required: true,
          editable: false,
        },
      ],
    },
  ],
  created_at: '2026-11-25T09:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
  version_created_at: '2026-11-25T10:00:00.000Z',
};

export const PortableTemplateResponse = Type.Object(
  {
    format: Type.Literal(TEMPLATE_FORMAT),
    template_id: Uuid,
    version: Type.Integer({ description: 'the version shown; also the ETag' }),
    latest_version: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    archived: Type.Boolean(),
    archived_at: Nullable(Type.String({ format: 'date-time' })),
    created_by: CreatedBy,
    settings: Type.Object({
      message: Nullable(Type.String()),
      routing_order: Type.String(),
      expire_in_days: Nullable(Type.Integer()),
      redirect_url: Nullable(Type.String()),
      metadata: Nullable(Type.Object({}, { additionalProperties: true })),
      reminders: Type.Optional(ReminderSettingsBody),
      retention_days: Type.Optional(
        Type.Integer({
          description:
            "the template's own retention: documents of the envelopes made from it are deleted this many days after they finished; absent: the account's policy",
        }),
      ),
    }),
    roles: Type.Array(
      Type.Object({
        role_key: Type.String(),
        label: Nullable(Type.String()),
        role: Type.String(),
        signature_method: Type.String(),
        sequence: Type.Integer(),
      }),
    ),
    documents: Type.Array(
      Type.Object({
        document_id: Uuid,
        filename: Type.String(),
        sha256: Type.String(),
        size: Type.Integer(),
        page_count: Type.Integer(),
        fields: Type.Array(TemplateFieldView),
        content_base64: Type.Optional(Type.String({ description: 'with ?include=documents' })),
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    version_created_at: Type.String({ format: 'date-time' }),
  },
  {
    description:
      'the portable template: self-describing; with ?include=documents it re-creates the template on another installation (POST /templates)',
    examples: [PORTABLE_EXAMPLE],
  },
);

export const TemplateListItem = Type.Object({
  template_id: Uuid,
  name: Type.String(),
  version: Type.Integer(),
  archived: Type.Boolean(),
  archived_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  created_by: CreatedBy,
});
export const TemplateListResponse = Type.Object(
  {
    templates: Type.Array(TemplateListItem),
    next_cursor: Nullable(Type.String({ description: 'pass as ?cursor= for the next page; null on the last' })),
  },
  {
    examples: [
      {
        templates: [
          {
            template_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f',
            name: 'Sale agreement',
            version: 2,
            archived: false,
            archived_at: null,
            created_at: '2026-11-25T09:00:00.000Z',
            updated_at: '2026-11-25T10:00:00.000Z',
            created_by: { user_id: '0193f0e2-6c1a-7b3e-9d2f-0000000000aa', email: 'meera@example.com' },
          },
        ],
        next_cursor: null,
      },
    ],
  },
);
export const TemplateListQuery = Type.Object({
  archived: Type.Optional(
    StringEnum(['true', 'false', 'all'] as const, { description: 'default false: active templates only' }),
  ),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'case-insensitive substring of the name' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  mine: Type.Optional(
    Type.Boolean({
      description:
        'true: only the templates the logged-in console user created (a login token only; with an API key 422)',
    }),
  ),
});

const FieldRef = Type.Object({
  document: Type.Integer(),
  role_key: Type.String(),
  field_type: Type.Integer(),
  field_key: Nullable(Type.String()),
});
export const ChangeSummarySchema = Type.Object({
  created_from: Type.Optional(Type.String({ description: 'version 1 only: upload, envelope or import' })),
  name_changed: Type.Boolean(),
  description_changed: Type.Boolean(),
  settings_changed: Type.Array(Type.String()),
  roles_added: Type.Array(Type.String()),
  roles_removed: Type.Array(Type.String()),
  roles_changed: Type.Array(Type.String()),
  fields_added: Type.Array(FieldRef),
  fields_removed: Type.Array(FieldRef),
  fields_moved: Type.Array(FieldRef),
  fields_changed: Type.Array(FieldRef),
  documents_added: Type.Array(Type.String()),
  documents_removed: Type.Array(Type.String()),
  documents_replaced: Type.Array(
    Type.Object({ position: Type.Integer(), from_sha256: Type.String(), to_sha256: Type.String() }),
  ),
});
export const VersionResponse = Type.Object({
  version: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Object({
    type: Type.String({ description: 'api_key or admin' }),
    id: Nullable(Type.String({ description: 'the API key id' })),
  }),
  summary: ChangeSummarySchema,
});
const SUMMARY_EXAMPLE = {
  name_changed: false,
  description_changed: false,
  settings_changed: ['expire_in_days'],
  roles_added: ['witness'],
  roles_removed: [],
  roles_changed: [],
  fields_added: [],
  fields_removed: [],
  fields_moved: [{ document: 0, role_key: 'seller', field_type: 1, field_key: null }],
  fields_changed: [],
  documents_added: [],
  documents_removed: [],
  documents_replaced: [],
};
const VERSION_EXAMPLE = {
  version: 2,
  created_at: '2026-11-25T10:00:00.000Z',
  created_by: { type: 'api_key', id: '5b0c7d0e-2f3a-4b5c-8d9e-0a1b2c3d4e5f' },
  summary: SUMMARY_EXAMPLE,
};
export const VersionListResponse = Type.Object(
  {
    versions: Type.Array(VersionResponse),
    next_before: Nullable(Type.Integer({ description: 'pass as ?before= for older versions' })),
  },
  {
    examples: [
      {
        versions: [
          VERSION_EXAMPLE,
          {
            version: 1,
            created_at: '2026-11-25T09:00:00.000Z',
            created_by: VERSION_EXAMPLE.created_by,
            summary: {
              ...SUMMARY_EXAMPLE,
              created_from: 'upload',
              settings_changed: [],
              roles_added: [],
              fields_moved: [],
            },
          },
        ],
        next_before: null,
      },
    ],
  },
);
export const VersionDetailResponse = Type.Intersect(
  [VersionResponse, Type.Object({ template: PortableTemplateResponse })],
  {
    examples: [{ ...VERSION_EXAMPLE, template: PORTABLE_EXAMPLE }],
  },
);
export const VersionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  before: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const TemplateParams = Type.Object({ id: Uuid });
export const VersionParams = Type.Object({ id: Uuid, version: Type.Integer({ minimum: 1 }) });
export const TemplateGetQuery = Type.Object({
  include: Type.Optional(
    StringEnum(['documents'] as const, { description: 'documents: embed each PDF as content_base64' }),
  ),
});

export const TemplatePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    description: Opt(Type.String({ maxLength: 10_000 })),
    settings: Opt(TemplateSettingsPatch),
    roles: Type.Optional(Type.Array(TemplateRoleBody, { maxItems: 100, description: 'replaces the roles' })),
    documents: Type.Optional(
      Type.Array(TemplateDocumentBody, { maxItems: 20, description: 'replaces the documents and their fields' }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'JSON Merge Patch (RFC 7396) on the portable template; read-only members may be sent back unchanged; unknown members are ignored',
    examples: [
      { settings: { expire_in_days: 30 } },
      {
        roles: [
          { role_key: 'seller', label: 'Seller' },
          { role_key: 'buyer', label: 'Buyer' },
          { role_key: 'witness', role: 'cc' },
        ],
      },
    ],
  },
);

/** A multipart PATCH replacing the document, as documented. */
export const TemplatePatchMultipartExample = {
  template: {
    documents: [
      {
        file: 'v2',
        fields: [{ role_key: 'seller', field_type: 1, page_number: 3, x: 72, y: 600, width: 180, height: 50 }],
      },
    ],
  },
  v2: '(the new PDF file, application/pdf)',
};

export const InstantiateBody = Type.Object(
  {
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'default: the latest' })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'default: the template name' })),
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    expire_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
    recipients: Type.Record(
      Type.String(),
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 200 }),
        email: Type.String({ format: 'email', maxLength: 320 }),
      }),
      { description: 'slot mappings: { role_key: { name, email } }, one per role' },
    ),
    field_values: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 10_000 }), {
        description: '{ field_key: value }: pre-assigned values',
      }),
    ),
    send: Type.Optional(Type.Boolean({ description: 'send at once (default false: a draft)' })),
    delivery: Type.Optional(Delivery),
  },
  {
    examples: [
      {
        title: 'Sale of flat 4B',
        recipients: {
          seller: { name: 'Asha Rao', email: 'asha@example.com' },
          buyer: { name: 'Vikram Shah', email: 'vikram@example.com' },
        },
        field_values: { price: '8500000' },
        send: true,
      },
    ],
  },
);
export type InstantiateBody = Static<typeof InstantiateBody>;

export const InstantiateHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'required: the same key and body replay the first response for 24 hours',
    }),
  ),
});
export const PatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'the ETag (version) you edited, e.g. "2": another version in between gives 412' }),
  ),
});

const person = (id: string, name: string, email: string, sequence: number, role = 'signer') => ({
  recipient_id: id,
  name,
  email,
  role,
  signature_method: role === 'signer' ? 'electronic' : 'review',
  sequence,
  status: 'created',
});
const field = (id: string, recipientId: string, extra: Record<string, unknown>) => ({
  field_id: id,
  recipient_id: recipientId,
  label: null,
  value: null,
  options: null,
  pdf_signature_field: null,
  required: true,
  editable: false,
  ...extra,
});

/** POST /templates/{id}/instantiate answers the envelope, as GET /envelopes/{id} shows it, pinned to the version. */
export const InstantiatedEnvelopeResponse = {
  ...EnvelopeResponse,
  examples: [
    {
      id: '01a2016b-fd10-7e4a-a1c2-6b7d8e9f0a1b',
      title: 'Sale of flat 4B',
      status: 'draft',
      external_id: null,
      routing_order: 'sequential',
      message: 'Please sign',
      expire_in_days: 14,
      redirect_url: null,
      metadata: null,
      recipients: [
        person('01a2016b-fd10-7a01-8000-000000000001', 'Asha Rao', 'asha@example.com', 1),
        person('01a2016b-fd10-7a01-8000-000000000002', 'Vikram Shah', 'vikram@example.com', 2),
      ],
      documents: [
        {
          document_id: '0193f0e2-6c1a-7b3e-9d2f-000000000001',
          filename: 'sale.pdf',
          page_count: 2,
          size: 48213,
          sha256: 'a'.repeat(64),
          pages: [
            { page_number: 1, width: 595, height: 842, rotate: 0 },
            { page_number: 2, width: 595, height: 842, rotate: 0 },
          ],
          signature_fields: [],
          created_at: '2026-11-25T09:00:00.000Z',
          fields: [
            field('01a2016b-fd10-7b01-8000-000000000001', '01a2016b-fd10-7a01-8000-000000000001', {
              field_type: 1,
              page_number: 2,
              x: 72,
              y: 600,
              width: 180,
              height: 50,
            }),
            field('01a2016b-fd10-7b01-8000-000000000002', '01a2016b-fd10-7a01-8000-000000000002', {
              field_type: 10,
              page_number: 1,
              x: 300,
              y: 200,
              width: 120,
              height: 20,
              label: 'Price',
              value: '8500000',
            }),
          ],
          certified: null,
          certification_skipped: null,
          final_sha256: null,
        },
      ],
      sent_at: null,
      completed_at: null,
      expires_at: null,
      status_reason: null,
      pades_level: null,
      template_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f',
      template_version: 2,
      bulk_send_id: null,
      row_index: null,
      created_by: null,
      delivery: 'email',
      reminders: null,
      mode: 'live',
      purged_at: null,
      legal_hold: null,
      created_at: '2026-11-25T11:00:00.000Z',
      updated_at: '2026-11-25T11:00:00.000Z',
    },
  ],
} as typeof EnvelopeResponse;
