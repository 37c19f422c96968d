/** The account's retention policy (domain/retention/policy.ts; docs/operations.md, "Retention"). */
import { Type, type Static } from 'typebox';
import { MAX_RETENTION_DAYS } from '../../domain/retention/policy.js';

export const RetentionPolicyBody = Type.Object(
  {
    retention_days: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 1,
      maximum: MAX_RETENTION_DAYS,
      description:
        "a finished envelope's documents (completed, declined, voided or expired) are deleted this many days after it finished, keeping its audit trail, the documents' SHA-256 and the certificate of completion (event envelope.purged); null (the default): kept for ever. A template's settings.retention_days replaces it for the envelopes made from that template; a legal hold stops it for one envelope",
    }),
  },
  { additionalProperties: false, examples: [{ retention_days: 365 }, { retention_days: null }] },
);
export type RetentionPolicyBody = Static<typeof RetentionPolicyBody>;
