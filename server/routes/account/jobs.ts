/** The account's background jobs (mail sending, …): see retries and dead letters with their last error. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { Nullable, problems, StringEnum, Uuid } from '../../http/schemas/common.js';
import { JOB_STATES, listAccountJobs } from '../../domain/operators/list-jobs.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export const JobsQuery = Type.Object({
  state: Type.Optional(
    StringEnum(JOB_STATES, { description: 'only jobs in this state (dead: gave up after the last attempt)' }),
  ),
  kind: Type.Optional(Type.String({ maxLength: 100, description: 'only jobs of this kind, e.g. mail.send' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'page size, default 50' })),
  before: Type.Optional(
    Type.String({ format: 'uuid', description: 'paging: the id of the last job of the previous page (next_before)' }),
  ),
});

export const JobItem = Type.Object({
  id: Uuid,
  kind: Type.String(),
  payload: Type.Unknown({ description: 'the job input (JSON)' }),
  state: StringEnum(JOB_STATES),
  attempts: Type.Integer({ description: 'attempts started so far' }),
  max_attempts: Type.Integer(),
  run_at: Type.String({ format: 'date-time', description: 'queued jobs: not before this time (the next retry)' }),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
});

export const JobsResponse = Type.Object({
  items: Type.Array(JobItem, { description: 'newest first' }),
  next_before: Nullable(Type.String({ description: 'pass as before for the next page; null on the last page' })),
});

export function jobRoutes(app: App, ctx: Context): void {
  app.get(
    '/jobs/',
    {
      onRequest: requireAdminLogin(ctx),
      schema: {
        operationId: 'listJobs',
        tags: ['jobs'],
        summary: "The account's background jobs, newest first (filter state=dead for dead letters)",
        security: LOGIN,
        headers: BearerHeader,
        querystring: JobsQuery,
        response: { 200: JobsResponse, ...problems(401, 403, 422) },
      },
    },
    (request) => {
      const q = request.query;
      return listAccountJobs(ctx, accountOf(request), {
        limit: q.limit ?? 50,
        ...(q.state ? { state: q.state } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.before ? { before: q.before } : {}),
      });
    },
  );
}
