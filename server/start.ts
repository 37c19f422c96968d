/** Starts the office server: the runtime (runtime.ts), the first account, the HTTP app, jobs and webhooks. */
import type { Config } from './config.js';
import { buildServerApp } from './app.js';
import { bootstrapFirstAccount, type BootstrapResult } from './domain/accounts/bootstrap.js';
import type { Context } from './domain/context.js';
import type { App } from './routes/types.js';
import { openRuntime, type RuntimeOptions } from './runtime.js';
import { JobRunner, type JobLogger } from './jobs/runner.js';
import { mailJobHandlers } from './mail/send.js';
import { workflowJobHandlers } from './domain/workflow/job-handlers.js';
import { webhookWorkerFor } from './webhooks/worker.js';
import { blobGcJobHandlers, scheduleBlobGc } from './storage/blob-gc.js';
import { scheduleReminderSweep } from './domain/workflow/auto-remind.js';
import { retentionJobHandlers, scheduleRetentionPurge } from './domain/retention/purge-job.js';

export interface RunningServer {
  readonly app: App;
  readonly url: string;
  readonly bootstrap: BootstrapResult | undefined;
  close(): Promise<void>;
}

/** The job runner with every handler the server knows (mail, completion, expiry, blob collection, retention). */
export function jobRunnerFor(ctx: Context, options: { pollIntervalMs?: number; logger?: JobLogger } = {}): JobRunner {
  return new JobRunner({
    db: ctx.db,
    dialect: ctx.dialect,
    handlers: {
      ...mailJobHandlers(ctx),
      ...workflowJobHandlers(ctx),
      ...blobGcJobHandlers(ctx),
      ...retentionJobHandlers(ctx),
    },
    now: ctx.now,
    leaseMs: ctx.config.jobLeaseSeconds * 1000,
    ...options,
  });
}

export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  const runtime = await openRuntime(config, () => new Date(), options);
  const bootstrap = await bootstrapFirstAccount(runtime.ctx);
  // Create the installation seal now: a wrong secret key should fail at start, not at the first completion.
  await runtime.ctx.seal();
  const { app, inFlight } = await buildServerApp(runtime.ctx);
  const runner = jobRunnerFor(runtime.ctx, { logger: app.log });
  // The hourly blob collector keeps itself scheduled; this starts the chain (once per hour slot).
  await scheduleBlobGc(runtime.ctx.db, runtime.ctx.now());
  // Likewise the hourly automatic reminders (domain/workflow/auto-remind.ts).
  await scheduleReminderSweep(runtime.ctx.db, runtime.ctx.now());
  // And the hourly retention purge (domain/retention/purge-job.ts; it purges only where a policy is set).
  await scheduleRetentionPurge(runtime.ctx.db, runtime.ctx.now());
  runner.start();
  // Webhooks have their own worker: deliveries never wait behind mail or completion jobs.
  const webhooks = webhookWorkerFor(runtime.ctx, { logger: app.log });
  webhooks.start();
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    bootstrap,
    async close() {
      await app.close();
      await inFlight.drain();
      await runner.stop({ timeoutMs: 30_000 });
      await webhooks.stop({ timeoutMs: 15_000 });
      await runtime.close();
    },
  };
}
