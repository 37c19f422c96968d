/**
 * Operators: run a dead job (every attempt failed) once more, now. It gets one more attempt than it has used,
 * so a failure makes it dead again instead of starting a whole new retry schedule.
 */
import { MoharError } from '../../../common/errors.js';
import { jobView, type JobView } from '../../jobs/queue.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

export async function retryJob(ctx: Context, accountId: string, jobId: string): Promise<JobView> {
  const row = await ctx.db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', jobId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new MoharError('job_not_found', `no job ${jobId} in this account`);
  if (row.state !== 'dead') {
    throw new MoharError('job_not_dead', `only dead jobs can be retried; this one is ${row.state}`);
  }
  const at = iso(ctx.now());
  const change = {
    state: 'queued' as const,
    run_at: at,
    max_attempts: Number(row.attempts) + 1,
    finished_at: null,
    lease_owner: null,
    lease_expires_at: null,
    updated_at: at,
  };
  const moved = await ctx.db
    .updateTable('jobs')
    .set(change)
    .where('id', '=', jobId)
    .where('state', '=', 'dead')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new MoharError('job_not_dead', 'the job changed meanwhile; look again');
  return jobView({ ...row, ...change });
}
