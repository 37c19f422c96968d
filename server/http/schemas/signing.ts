import { Type } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { FieldResponse } from './envelopes.js';

export const SigningSessionBody = Type.Object({
  recipient_id: Uuid,
  mode: Type.Optional(StringEnum(['redirect', 'embedded'] as const, { description: 'default embedded' })),
  origin: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: 2048,
      description: 'required in embedded mode; must be allowed on the account',
    }),
  ),
  // Where the page sends the signer after the act: http(s) only (never javascript: or data:); checked again in
  // createSigningSession, which also keeps an embedded session's return_url on its origin.
  return_url: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: 2048,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: 'http(s) URL; in embedded mode on the session origin',
    }),
  ),
});

export const SigningSessionResponse = Type.Object({
  signing_url: Type.String({ description: '{MOHAR_BASE_URL}/sign/{token}; expires 15 minutes after creation' }),
  expires_at: Type.String({ format: 'date-time' }),
  recipient_id: Uuid,
  mode: StringEnum(['redirect', 'embedded'] as const),
  origin: Nullable(Type.String()),
});

export const TokenParams = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100 }) });
export const TokenDocumentParams = Type.Object({
  token: Type.String({ minLength: 20, maxLength: 100 }),
  document_id: Uuid,
});

const SignerField = Type.Intersect([FieldResponse, Type.Object({ document_id: Uuid })]);

export const SignerViewResponse = Type.Object({
  envelope: Type.Object({
    id: Uuid,
    title: Type.String(),
    message: Nullable(Type.String()),
    status: Type.String(),
    redirect_url: Nullable(Type.String()),
  }),
  recipient: Type.Object({
    recipient_id: Uuid,
    name: Type.String(),
    email: Type.String(),
    role: Type.String(),
    signature_method: Type.String(),
    status: Type.String(),
  }),
  action: StringEnum(['sign', 'review', 'approve', 'wait', 'done', 'closed'] as const, {
    description: 'what this recipient can do now',
  }),
  fields: Type.Array(SignerField, { description: "this recipient's fields" }),
  other_fields: Type.Array(SignerField, { description: "other recipients' filled values, read-only" }),
  documents: Type.Array(
    Type.Object({
      document_id: Uuid,
      filename: Type.String(),
      sha256: Type.String({ description: 'SHA-256 of the current revision' }),
      pages: Type.Array(
        Type.Object({
          page_number: Type.Integer(),
          width: Type.Number(),
          height: Type.Number(),
          rotate: Type.Integer(),
        }),
      ),
    }),
  ),
  session: Type.Object({
    expires_at: Type.String({ format: 'date-time' }),
    mode: Type.String(),
    origin: Nullable(Type.String()),
    return_url: Nullable(Type.String()),
  }),
  sandbox: Type.Boolean({
    description:
      'a mock DSC request of the sandbox: sign with POST {api_base}/signing/{token}/mock-dsc ("Sign with a test certificate")',
  }),
});

/** POST …/documents/{document_id}/prepared: the signer's values for their own text fields, as in ActBody. */
export const PreparedBody = Type.Object({
  fields: Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Boolean()])),
});

export const ActBody = Type.Object({
  action: StringEnum(['sign', 'review', 'approve', 'decline'] as const),
  fields: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Boolean()]), {
      description:
        "values by field_id, for sign and approve: the recipient's own fields that they fill (not Signature, Initials or the fields Mohar fills from their details); anything else is refused",
    }),
  ),
  signature: Type.Optional(
    Type.Object({
      kind: StringEnum(['drawn', 'typed', 'uploaded'] as const, {
        description: 'drawn by hand, typed, or an uploaded image',
      }),
      image_png: Type.Optional(
        Type.String({
          maxLength: 2_000_000,
          description:
            'base64 PNG of the signature: required for drawn and uploaded; for typed, the text as rendered by the page (optional)',
        }),
      ),
      text: Type.Optional(Type.String({ maxLength: 200, description: 'the typed signature (required for typed)' })),
    }),
  ),
  initials: Type.Optional(
    Type.Object(
      {
        kind: StringEnum(['drawn', 'typed'] as const, { description: 'drawn by hand or typed' }),
        image_png: Type.Optional(
          Type.String({
            maxLength: 2_000_000,
            description:
              'base64 PNG of the initials (same limits as signature.image_png): required for drawn; for typed, the text as rendered by the page (optional)',
          }),
        ),
        text: Type.Optional(Type.String({ maxLength: 20, description: 'the typed initials (required for typed)' })),
      },
      {
        description:
          "sign only: the signer's initials, drawn or typed once and shown in every Initials field (type 2) of theirs; required when they have such fields, refused when they have none",
      },
    ),
  ),
  consent: Type.Optional(
    Type.Boolean({ description: 'the consent statement was accepted; required to sign, review or approve' }),
  ),
  decline_reason: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const ActResponse = Type.Object({
  recipient_status: Type.String(),
  envelope_status: Type.String(),
  redirect_url: Nullable(
    Type.String({ description: 'where to send the signer now (return_url or the envelope redirect_url)' }),
  ),
});

export const AccountSettingsBody = Type.Object({
  allowed_origins: Type.Array(Type.String({ maxLength: 2048 }), {
    maxItems: 100,
    description: 'origins (scheme://host[:port]) allowed to embed the signing page',
  }),
  accept_untrusted_dsc: Type.Optional(
    Type.Boolean({
      description:
        'accept USB DSC certificates that do not validate (unknown issuer, expired, not yet valid, revoked, revocation unknown, not for signing); the act records trust "untrusted" and the certificate of completion shows it. Default false: refused with dsc_certificate_untrusted. Absent in a PUT: unchanged.',
    }),
  ),
  accept_dsc_identity_mismatch: Type.Optional(
    Type.Boolean({
      description:
        "accept a USB DSC certificate that names neither the recipient's name nor e-mail; the act records name_match and email_match false. Default false: refused with dsc_identity_mismatch (names compared ignoring case, spaces and punctuation). Cannot be true together with require_dsc_identity_match (validation_failed). Absent in a PUT: unchanged.",
    }),
  ),
  require_dsc_identity_match: Type.Optional(
    Type.Boolean({
      description:
        "stricter binding: refuse a USB DSC certificate whose name differs from the recipient's, or whose e-mail addresses (when it carries any) exclude the recipient's (dsc_identity_mismatch). Default false: one of name or e-mail matching is enough. Absent in a PUT: unchanged.",
    }),
  ),
});
