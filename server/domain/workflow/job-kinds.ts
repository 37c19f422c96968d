/** Durable jobs of the workflow (run by server/jobs): their kinds and payloads; handlers in job-handlers.ts. */
import { Type } from 'typebox';
import { jobKind } from '../../jobs/definition.js';

const ForEnvelope = Type.Object({ envelope_id: Type.String() });

/** Completion of an envelope whose every actor has acted. */
export const COMPLETE_JOB = jobKind('envelope.complete', ForEnvelope);
/** Expiry of a sent envelope at its expires_at. */
export const EXPIRE_JOB = jobKind('envelope.expire', ForEnvelope);
/** One chunk of a bulk send's rows, from row `from` (server/domain/bulk/run-chunk.ts). */
export const BULK_SEND_CHUNK_JOB = jobKind(
  'bulk_send.chunk',
  Type.Object({ bulk_send_id: Type.String(), from: Type.Integer({ minimum: 0 }) }),
);
