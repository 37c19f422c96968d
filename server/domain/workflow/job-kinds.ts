/** Durable jobs of the workflow (run by server/jobs): completion and expiry of envelopes. */
export const COMPLETE_JOB = 'envelope.complete';
export const EXPIRE_JOB = 'envelope.expire';
/** One chunk of a bulk send's rows (server/domain/bulk/run-chunk.ts). */
export const BULK_SEND_CHUNK_JOB = 'bulk_send.chunk';
