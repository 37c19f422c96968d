/** The workflow's durable jobs, for the job runner (server/jobs). */
import type { JobHandlers } from '../../jobs/runner.js';
import type { Context } from '../context.js';
import { completeEnvelope } from './complete-envelope.js';
import { expireEnvelope } from './expire-envelope.js';
import { COMPLETE_JOB, EXPIRE_JOB } from './job-kinds.js';
import { bulkJobHandlers } from '../bulk/run-chunk.js';
import { reminderJobHandlers } from './auto-remind.js';

function envelopeIdOf(payload: unknown): string {
  const id = (payload as { envelope_id?: unknown } | null)?.envelope_id;
  if (typeof id !== 'string') throw new Error('job payload without envelope_id');
  return id;
}

export function workflowJobHandlers(ctx: Context): JobHandlers {
  return {
    [COMPLETE_JOB]: (payload) => completeEnvelope(ctx, envelopeIdOf(payload)),
    [EXPIRE_JOB]: async (payload) => {
      await expireEnvelope(ctx, envelopeIdOf(payload));
    },
    ...bulkJobHandlers(ctx),
    ...reminderJobHandlers(ctx),
  };
}
