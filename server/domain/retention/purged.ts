/** What the calls that hand out an envelope's documents answer once retention purged them. */
import { MoharError } from '../../../common/errors.js';

export function purgedError(envelopeId: string, purgedAt?: string | null): MoharError {
  return new MoharError(
    'documents_purged',
    `the documents of envelope ${envelopeId} were deleted by the retention policy; the audit trail, the documents' SHA-256 and the certificate of completion remain`,
    { extra: { envelope_id: envelopeId, ...(purgedAt ? { purged_at: purgedAt } : {}) } },
  );
}

/** Refuses a purged envelope (documents_purged, 410 Gone). */
export function refusePurged(envelope: { id: string; purged_at?: string | null }): void {
  if (envelope.purged_at) throw purgedError(envelope.id, envelope.purged_at);
}
