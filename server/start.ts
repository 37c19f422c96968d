/** Starts the office server: the runtime (runtime.ts), the first account, the HTTP app, jobs and webhooks. */
import type { Config } from './config.js';
import { buildServerApp } from './app.js';
import { bootstrapFirstAccount, type BootstrapResult } from './domain/accounts/bootstrap.js';
import type { Context } from './domain/context.js';
import type { App } from './http/app-type.js';
import { openRuntime, type RuntimeOptions } from './runtime.js';
import { JobRunner, type JobLogger } from './jobs/runner.js';
import { jobHandlers, type RunnableJob } from './jobs/definition.js';
import { mailSendJob } from './mail/send.js';
import { completeEnvelopeJob, expireEnvelopeJob } from './domain/workflow/job-handlers.js';
import { bulkChunkJob } from './domain/bulk/run-chunk.js';
import { webhookWorkerFor } from './webhooks/worker.js';
import { blobGcJob, scheduleBlobGc } from './domain/documents/collect-blobs-job.js';
import type { BlobStore } from './storage/blobs.js';
import type { BlobStoreKind } from './config-blobs.js';
import { reminderSweepJob, scheduleReminderSweep } from './domain/workflow/auto-remind.js';
import { listenForMetrics } from './metrics/http.js';
import { shutDownInOrder } from './shutdown.js';
import { retentionPurgeJob, scheduleRetentionPurge } from './domain/retention/purge-job.js';

export interface RunningServer {
  readonly app: App;
  readonly url: string;
  readonly bootstrap: BootstrapResult | undefined;
  /** The separate metrics listener's URL (MOHAR_METRICS_LISTEN), if any. */
  readonly metricsUrl: string | undefined;
  /**
   * Stops in order (shutdown.ts), waiting for requests and jobs until `deadlineMs` (default
   * MOHAR_SHUTDOWN_TIMEOUT_MS); resolves once the database is closed.
   */
  close(options?: { deadlineMs?: number }): Promise<void>;
}

/** Every durable job the server runs, one typed definition each (server/jobs/definition.ts). */
export const SERVER_JOBS: readonly RunnableJob<Context>[] = [
  mailSendJob,
  completeEnvelopeJob,
  expireEnvelopeJob,
  bulkChunkJob,
  reminderSweepJob,
  blobGcJob,
  retentionPurgeJob,
];

/** The job runner with every job the server knows (SERVER_JOBS). */
export function jobRunnerFor(ctx: Context, options: { pollIntervalMs?: number; logger?: JobLogger } = {}): JobRunner {
  return new JobRunner({
    db: ctx.db,
    dialect: ctx.dialect,
    handlers: jobHandlers(ctx, SERVER_JOBS),
    now: ctx.now,
    leaseMs: ctx.config.jobLeaseSeconds * 1000,
    ...options,
  });
}

async function probeBlobStore(blobs: BlobStore, kind: BlobStoreKind): Promise<void> {
  try {
    await blobs.probe();
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const reason = `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    throw new Error(
      `the blob store (MOHAR_BLOB_STORE=${kind}) does not answer: ${reason}${status ? ` (HTTP ${status})` : ''}`,
      {
        cause: error,
      },
    );
  }
}

export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  const runtime = await openRuntime(config, () => new Date(), options);
  // Likewise a wrong bucket, endpoint or key (MOHAR_BLOB_STORE=s3) fails at start, not at the first upload.
  await probeBlobStore(runtime.ctx.blobs, config.blobStore);
  const bootstrap = await bootstrapFirstAccount(runtime.ctx);
  // Create the installation seal now: a wrong secret key should fail at start, not at the first completion.
  await runtime.ctx.seal();
  const { app, inFlight, state, ctx, metrics } = await buildServerApp(runtime.ctx);
  const runner = jobRunnerFor(ctx, { logger: app.log });
  // The hourly blob collector keeps itself scheduled; this starts the chain (once per hour slot).
  await scheduleBlobGc(ctx.db, ctx.now());
  // Likewise the hourly automatic reminders (domain/workflow/auto-remind.ts).
  await scheduleReminderSweep(ctx.db, ctx.now());
  // And the hourly retention purge (domain/retention/purge-job.ts; it purges only where a policy is set).
  await scheduleRetentionPurge(ctx.db, ctx.now());
  runner.start();
  // Webhooks have their own worker: deliveries never wait behind mail or completion jobs.
  const webhooks = webhookWorkerFor(ctx, {
    logger: app.log,
    ...(metrics
      ? {
          onAttempt: (response) => {
            const ok = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
            metrics.webhookAttempts.inc({ outcome: ok ? 'succeeded' : 'failed' });
            if (!ok) metrics.webhookFailures.inc();
          },
        }
      : {}),
  });
  webhooks.start();
  const metricsServer = metrics ? await listenForMetrics(metrics, config.metrics) : undefined;
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const metricsAddress = metricsServer?.address();
  return {
    app,
    url: `http://${hostForUrl(config.host)}:${port}`,
    bootstrap,
    metricsUrl:
      typeof metricsAddress === 'object' && metricsAddress
        ? `http://${hostForUrl(metricsAddress.address)}:${metricsAddress.port}`
        : undefined,
    close: (options = {}) =>
      shutDownInOrder(
        { app, state, inFlight, runner, webhooks, metricsServer, closeStorage: () => runtime.close() },
        options.deadlineMs ?? config.shutdownTimeoutMs,
      ),
  };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
