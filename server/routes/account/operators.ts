/** Operators' actions beside the outbox and jobs listings: send a kept mail again, retry a dead job. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { resendMail } from '../../domain/operators/resend-mail.js';
import { retryJob } from '../../domain/operators/retry-job.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems, Uuid } from '../../http/schemas/common.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { JobItem } from './jobs.js';

const MailParams = Type.Object({ mail_id: Uuid });
const JobParams = Type.Object({ job_id: Uuid });
const ResentMailResponse = Type.Object({
  id: Uuid,
  status: Type.Literal('queued'),
  job_id: Type.String({ format: 'uuid', description: 'the mail.send job that sends it (GET /jobs/)' }),
});

export function operatorRoutes(app: App, ctx: Context): void {
  const onRequest = requireAdminLogin(ctx);

  app.post(
    '/mail/outbox/:mail_id/resend/',
    {
      onRequest,
      schema: {
        operationId: 'resendMail',
        tags: ['mail'],
        summary: 'Send a kept or failed mail again (needs a mail server: MOHAR_SMTP_URL or the saved mail settings)',
        description:
          'The mail goes back to queued with a new mail.send job. 409 smtp_not_configured without an SMTP server (the mail would only be kept again); 409 mail_not_resendable unless the mail is kept or failed.',
        security: LOGIN,
        headers: BearerHeader,
        params: MailParams,
        response: { 202: ResentMailResponse, ...problems(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => reply.code(202).send(await resendMail(ctx, accountOf(request), request.params.mail_id)),
  );

  app.post(
    '/jobs/:job_id/retry/',
    {
      onRequest,
      schema: {
        operationId: 'retryJob',
        tags: ['jobs'],
        summary: 'Run a dead job once more, now (one more attempt)',
        description: '409 job_not_dead unless the job is dead (every attempt failed).',
        security: LOGIN,
        headers: BearerHeader,
        params: JobParams,
        response: { 202: JobItem, ...problems(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => reply.code(202).send(await retryJob(ctx, accountOf(request), request.params.job_id)),
  );
}
