/** Durable jobs of the workflow (run by server/jobs): completion and expiry of envelopes. */
export const COMPLETE_JOB = 'envelope.complete';
export const EXPIRE_JOB = 'envelope.expire';
