import { Type } from 'typebox';
import { streamedForm } from '../validators.js';
import { Nullable, StringEnum, Uuid } from './common.js';

/** The multipart form; the handler streams it and reports each missing or bad part by name. */
export const MockRequestForm = streamedForm(
  Type.Object(
    {
      file: Type.String({ format: 'binary', description: 'the PDF to sign' }),
      signer_name: Type.String({ maxLength: 200 }),
      signer_email: Type.String({ format: 'email', maxLength: 320 }),
      external_id: Type.Optional(
        Type.String({ maxLength: 200, description: 'your reference; unique per account, as for envelopes' }),
      ),
      webhook_url: Type.Optional(
        Type.String({
          format: 'uri',
          description: 'receives one envelope.completed event, signed with the returned webhook_secret',
        }),
      ),
    },
    { description: 'multipart/form-data' },
  ),
);

export const MockRequestCreated = Type.Object({
  public_id: Uuid,
  status: StringEnum(['pending'] as const),
  signing_url: Type.String({
    description: '{MOHAR_BASE_URL}/sign/{token}; valid 24 hours; the page offers "Sign with a test certificate"',
  }),
  expires_at: Type.String({ format: 'date-time' }),
  envelope_id: Uuid,
  document_id: Uuid,
  webhook_secret: Type.Optional(Type.String({ description: 'only when webhook_url was given; shown once' })),
});

export const TestCertificateSummary = Type.Object({
  subject: Type.String(),
  issuer: Type.String(),
  serial_number: Type.String(),
  not_before: Type.String({ format: 'date-time' }),
  not_after: Type.String({ format: 'date-time' }),
  sha256_fingerprint: Type.String(),
  self_signed: Type.Boolean(),
  test_certificate: Type.Boolean(),
});

export const MockRequestView = Type.Object({
  public_id: Uuid,
  status: StringEnum(['pending', 'completed', 'expired'] as const, {
    description: 'expired: not signed within the 24 hours of its link',
  }),
  envelope_id: Uuid,
  document_id: Uuid,
  external_id: Nullable(Type.String()),
  signer_name: Type.String(),
  signer_email: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  signed_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  certificate: Nullable(TestCertificateSummary),
  sha256: Nullable(Type.String({ description: 'SHA-256 of the signed PDF, once completed' })),
});

export const MockRequestParams = Type.Object({ public_id: Uuid });
