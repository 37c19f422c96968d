/**
 * Schemas of the legacy document API (docs/legacy-api.md). Unknown extra properties are accepted and ignored, as
 * integrations of the public service may send more.
 */
import { Type } from 'typebox';
import { LEGACY_SIGNATURE_TYPES, LEGACY_STATUSES } from '../../domain/legacy/vocabulary.js';
import { Nullable, StringEnum } from './common.js';

const DocumentId = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the integer document id' });

export const LegacyRecipient = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ format: 'email', maxLength: 320 }),
  typeOfSignature: StringEnum(LEGACY_SIGNATURE_TYPES, {
    description: 'E-Signature: electronic signer; aadhaar_digital_signature: Aadhaar eSign signer; Approver; Reviewer',
  }),
  sequence: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'routing step (1 acts first); equal numbers act in parallel; default: the order of the list',
    }),
  ),
  page_no: Type.Optional(
    Type.Integer({ minimum: 1, description: "page of this recipient's Signature field (signers: required)" }),
  ),
  x_cor: Type.Optional(
    Type.Number({
      minimum: 0,
      description: 'left edge of the Signature field, PDF points from the left of the page (signers: required)',
    }),
  ),
  y_cor: Type.Optional(
    Type.Number({
      minimum: 0,
      description: 'top edge of the Signature field, PDF points from the top of the page (signers: required)',
    }),
  ),
});

export const LegacyCreateBody = Type.Object({
  companyDetails: Type.Object({
    api_key: Type.String({ minLength: 1, maxLength: 200, description: 'the same key as in X-Api-Key' }),
    is_mail_required: Type.Optional(
      Type.Boolean({
        description: 'default true: Mohar mails the invitations. false: headless, the response carries signing_info',
      }),
    ),
  }),
  documentDetails: Type.Object({
    doc_url: Type.String({
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description: 'http(s) URL of the PDF, fetched by the server (public addresses only)',
    }),
    redirect_url: Type.Optional(
      Type.String({ format: 'uri', maxLength: 2048, description: 'where signers go after acting (http or https)' }),
    ),
  }),
  recipientDetail: Type.Array(LegacyRecipient, { minItems: 1, maxItems: 50 }),
});

export const SigningInfo = Type.Object({
  name: Type.String(),
  email: Type.String(),
  sequence: Type.Integer(),
  signing_url: Type.String(),
});

export const LegacyCreateResponse = Type.Object({
  status: Type.Literal('success'),
  document_id: Type.Integer(),
  envelope_id: Type.String({ format: 'uuid', description: 'the same document as an envelope of the v1 API' }),
  signing_info: Type.Optional(
    Type.Array(SigningInfo, { description: 'headless mode only: one link per recipient, in routing order' }),
  ),
});

export const SigningLinksBody = Type.Object({
  companyDetails: Type.Object({ api_key: Type.String({ minLength: 1, maxLength: 200 }) }),
  document_id: DocumentId,
});

export const SigningLinksResponse = Type.Object({
  status: Type.Literal('success'),
  document_id: Type.Integer(),
  signing_links: Type.Array(
    Type.Object({
      name: Type.String(),
      email: Type.String(),
      sequence: Type.Integer(),
      role: Type.String({ description: 'signer, approver or reviewer' }),
      status: Type.String({ description: 'active, viewed or waiting (not their turn yet)' }),
      signing_url: Type.String(),
      expires_at: Type.String({ format: 'date-time' }),
    }),
    { description: 'recipients who still have to act; empty once the document is finished' },
  ),
});

export const DocIdParams = Type.Object({ doc_id: DocumentId });
export const DocIdQuery = Type.Object({ doc_id: DocumentId });
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 512 }) });

export const AppSignStatusResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      user_name: Type.String(),
      email_of_user: Type.String(),
      is_signed: Type.Boolean({ description: 'finished their part: signed (or approved, reviewed)' }),
      is_rejected: Type.Boolean(),
      rejection_reason: Type.String({ description: 'empty unless rejected' }),
      sequence: Type.Integer(),
      signingCapacity: Type.String({ description: 'Signer, Approver or Reviewer' }),
      typeOfSignature: Type.String(),
    }),
  ),
  signed_doc_url: Type.Optional(
    Type.String({
      description:
        'present only when every recipient has signed: downloads the final PDF without a key; expires after 1 hour',
    }),
  ),
});

export const SignStatusResponse = Type.Object({
  status: Type.Literal('success'),
  document_id: Type.Integer(),
  envelope_id: Type.String({ format: 'uuid' }),
  document_status: StringEnum(LEGACY_STATUSES),
});

export const UsageSummaryResponse = Type.Object({
  period: Type.String({ description: 'calendar month, UTC (YYYY-MM)' }),
  period_start: Type.String({ format: 'date-time' }),
  period_end: Type.String({ format: 'date-time', description: 'when the monthly quota resets' }),
  monthly_call_limit: Nullable(Type.Integer({ description: 'legacy document creates per month; null: unlimited' })),
  calls_used: Type.Integer(),
  calls_remaining: Nullable(Type.Integer()),
  test_calls: Type.Integer({ description: 'creates with test keys this month (never against the quota)' }),
  rate_limit: Type.Object({
    requests_per_minute: Nullable(Type.Integer({ description: 'per API key; null: no limit' })),
    window_seconds: Type.Integer(),
    per: Type.Literal('api_key'),
  }),
});
