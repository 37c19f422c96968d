/** POST /verify: the public verifier's report (docs/verify.md). Not part of an API scope's OpenAPI document. */
import { Type } from 'typebox';
import { Nullable, StringEnum, Uuid } from './common.js';
import { SignatureSummary } from './signatures.js';

const Chain = Type.Object(
  {
    status: StringEnum(['cca_india', 'configured_anchor', 'not_anchored', 'no_certificate'] as const),
    anchor: Nullable(Type.String({ description: 'subject of the trust anchor the path ends in' })),
    chain: Type.Array(Type.String(), { description: 'certificate subjects, signer first' }),
    judged_at: Type.String({ format: 'date-time' }),
    judged_at_source: StringEnum(['timestamp', 'claimed_time', 'verification_time'] as const),
    problem: Nullable(StringEnum(['unknown_issuer', 'expired', 'not_yet_valid', 'not_for_signing', 'bad_ca'] as const)),
    problems: Type.Array(Type.String()),
  },
  { description: "the signer's certificate path, built from the signature's own certificates only (nothing fetched)" },
);

/** The signature summary of GET …/signatures, without the account's recipient ids, with the chain. */
export const PublicSignature = Type.Object({
  ...Type.Omit(SignatureSummary, ['recipient_id']).properties,
  chain: Chain,
});

const MoharEnvelope = Type.Object(
  {
    envelope_id: Uuid,
    title: Type.String(),
    test: Type.Boolean(),
    sent_at: Nullable(Type.String()),
    completed_at: Nullable(Type.String()),
    pades_level: Nullable(Type.String()),
    recipients: Type.Array(
      Type.Object({
        name: Type.String(),
        role: Type.String(),
        signature_method: Type.String(),
        status: Type.String(),
        acted_at: Nullable(Type.String()),
        certificate_trust: Nullable(Type.Object({ status: Type.String(), reason: Nullable(Type.String()) })),
      }),
    ),
    audit: Type.Object({
      events: Type.Integer(),
      chain_intact: Type.Boolean(),
      trail: Type.Array(Type.Object({ at: Type.String(), action: Type.String() })),
    }),
  },
  { description: 'the envelope this server completed with exactly these bytes' },
);

export const PublicVerifyResponse = Type.Object({
  sha256: Type.String(),
  size: Type.Integer(),
  revisions: Type.Integer(),
  valid: Type.Boolean(),
  verified_at: Type.String({ format: 'date-time' }),
  signatures: Type.Array(PublicSignature),
  mohar_envelope: Nullable(MoharEnvelope),
  cannot_know: Type.Array(
    StringEnum([
      'revocation_not_checked',
      'untrusted_chain_revocation',
      'claimed_time_only',
      'missing_intermediates_not_fetched',
      'identity_not_checked',
    ] as const),
  ),
});
