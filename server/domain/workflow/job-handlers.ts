/** The workflow's durable jobs (kinds in job-kinds.ts), for the job runner (server/jobs). */
import { defineJob } from '../../jobs/definition.js';
import type { Context } from '../context.js';
import { completeEnvelope } from './complete-envelope.js';
import { expireEnvelope } from './expire-envelope.js';
import { COMPLETE_JOB, EXPIRE_JOB } from './job-kinds.js';

export const completeEnvelopeJob = defineJob(COMPLETE_JOB, (ctx: Context, { envelope_id }) =>
  completeEnvelope(ctx, envelope_id),
);

export const expireEnvelopeJob = defineJob(EXPIRE_JOB, async (ctx: Context, { envelope_id }) => {
  await expireEnvelope(ctx, envelope_id);
});
