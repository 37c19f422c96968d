/** Operators: the account's background jobs, newest first (the job table's own listing, scoped to the account). */
import { listJobs, type JobPage, type ListJobsOptions } from '../../jobs/queue.js';
import type { Context } from '../context.js';

export { JOB_STATES } from '../../jobs/queue.js';

export function listAccountJobs(
  ctx: Context,
  accountId: string,
  options: Omit<ListJobsOptions, 'accountId'>,
): Promise<JobPage> {
  return listJobs(ctx.db, { ...options, accountId });
}
