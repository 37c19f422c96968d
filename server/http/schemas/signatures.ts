/** GET /envelopes/{id}/documents/{document_id}/signatures: our verifier's report on the current PDF. */
import { Type } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common.js';

const Certificate = Type.Object({
  subject: Type.String(),
  issuer: Type.String(),
  serial: Type.String({ description: 'hex' }),
  email: Nullable(Type.String()),
  not_before: Type.String({ format: 'date-time' }),
  not_after: Type.String({ format: 'date-time' }),
});

export const SignatureSummary = Type.Object({
  index: Type.Integer({ description: '1 = the first signature in the file' }),
  field: Type.String({ description: 'the PDF signature field (fully qualified name)' }),
  kind: StringEnum(['signature', 'document_timestamp'] as const),
  signer_name: Nullable(Type.String({ description: 'common name (CN) of the signing certificate' })),
  name: Nullable(Type.String({ description: 'the /Name the signature gives (e.g. the electronic signer)' })),
  certificate: Nullable(Certificate),
  signing_time: Nullable(
    Type.String({ description: 'the signature timestamp when there is one, else the time the signature claims (/M)' }),
  ),
  timestamp: Nullable(
    Type.Object(
      { time: Type.String({ format: 'date-time' }), valid: Type.Boolean() },
      { description: 'an RFC 3161 signature timestamp; null when absent' },
    ),
  ),
  pades_level: Nullable(Type.String({ description: 'B-B, B-T, B-LT or B-LTA (null: not a PAdES signature)' })),
  certification: Nullable(
    Type.Object(
      { docmdp: Type.Integer(), allows: Type.String() },
      { description: 'a certification signature (DocMDP) and what it allows afterwards' },
    ),
  ),
  field_lock: Nullable(
    Type.Object(
      {
        action: StringEnum(['All', 'Include', 'Exclude'] as const, {
          description: 'All: every form field; Include: the fields listed; Exclude: every field but those listed',
        }),
        fields: Type.Array(Type.String(), { description: 'fully qualified field names (empty for All)' }),
        changed: Type.Array(Type.String(), {
          description: 'locked fields that a later revision changed: a change this signature does not allow',
        }),
      },
      {
        description:
          'the form fields this signature locks (FieldMDP): no later value, appearance or signature of them is allowed; null when it locks none',
      },
    ),
  ),
  integrity_ok: Type.Boolean({ description: 'the signed bytes match the digest and the signature verifies' }),
  covers_whole_document: Type.Boolean(),
  revision: Nullable(Type.Integer({ description: 'the revision it signs (1-based)' })),
  changes_after: Type.String({
    description:
      'the worst change in the revisions after it: none, ltv, metadata, signing, form_filling, annotations, other',
  }),
  changes_after_allowed: Type.Boolean({
    description:
      'every later change is one the allow-list accepts (form filling, signing, validation data, document metadata), none to a locked field',
  }),
  valid: Type.Boolean(),
  problems: Type.Array(Type.String()),
  recipient_id: Nullable(Uuid),
  trust: Nullable(
    Type.Object(
      {
        status: StringEnum(['trusted', 'untrusted', 'test_certificate', 'installation_seal'] as const),
        reason: Nullable(
          Type.String({
            description: 'why untrusted: unknown_issuer, expired, revoked, revocation_unknown, not_for_signing',
          }),
        ),
      },
      {
        description:
          'USB DSC: the trust judged when the signature was accepted; installation_seal: signed by this server; test_certificate: the sandbox test certificate or, on a test envelope, the test seal; null: the server knows no trust result',
      },
    ),
  ),
});

export const SignaturesResponse = Type.Object(
  {
    envelope_id: Uuid,
    document_id: Uuid,
    sha256: Type.String({
      description: 'of the PDF verified: the latest revision once sent, the upload while a draft',
    }),
    size: Type.Integer(),
    revisions: Type.Integer(),
    valid: Type.Boolean({ description: 'there is at least one signature and every one is valid' }),
    signatures: Type.Array(SignatureSummary),
  },
  {
    examples: [
      {
        envelope_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f',
        document_id: '0193f0e2-6c1a-7b3e-9d2f-000000000010',
        sha256: 'b'.repeat(64),
        size: 91234,
        revisions: 6,
        valid: true,
        signatures: [
          {
            index: 1,
            field: 'Mohar certification',
            kind: 'signature',
            signer_name: 'Mohar installation seal',
            name: null,
            certificate: {
              subject: 'CN=Mohar installation seal, O=Example Office',
              issuer: 'CN=Mohar installation CA',
              serial: '3A9F01',
              email: null,
              not_before: '2026-01-01T00:00:00.000Z',
              not_after: '2036-01-01T00:00:00.000Z',
            },
            signing_time: '2026-11-25T09:05:00.000Z',
            timestamp: null,
            pades_level: 'B-B',
            certification: { docmdp: 2, allows: 'form filling and signing' },
            field_lock: null,
            integrity_ok: true,
            covers_whole_document: false,
            revision: 3,
            changes_after: 'signing',
            changes_after_allowed: true,
            valid: true,
            problems: [],
            recipient_id: null,
            trust: { status: 'installation_seal', reason: null },
          },
          {
            index: 2,
            field: 'Signature1',
            kind: 'signature',
            signer_name: 'VIKRAM SHAH',
            name: null,
            certificate: {
              subject: 'C=IN, O=Personal, CN=VIKRAM SHAH',
              issuer: 'C=IN, O=Example CA, CN=Example Sub CA for Class 3 Individual 2022',
              serial: '1F2E3D',
              email: 'vikram@example.com',
              not_before: '2025-04-01T00:00:00.000Z',
              not_after: '2027-03-31T00:00:00.000Z',
            },
            signing_time: '2026-11-25T10:12:00.000Z',
            timestamp: { time: '2026-11-25T10:12:01.000Z', valid: true },
            pades_level: 'B-LT',
            certification: null,
            field_lock: {
              action: 'Include',
              fields: ['mohar.0193f0e2-6c1a-7b3e-9d2f-000000000002.price'],
              changed: [],
            },
            integrity_ok: true,
            covers_whole_document: false,
            revision: 4,
            changes_after: 'ltv',
            changes_after_allowed: true,
            valid: true,
            problems: [],
            recipient_id: '0193f0e2-6c1a-7b3e-9d2f-000000000002',
            trust: { status: 'trusted', reason: null },
          },
        ],
      },
    ],
  },
);
