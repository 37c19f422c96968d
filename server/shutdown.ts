/**
 * The ordered stop of a running server (SIGTERM, SIGINT, the desktop quitting):
 *  1. readiness answers 503 (load balancers stop sending new requests);
 *  2. the job runner and the webhook worker stop claiming; running jobs and attempts go on;
 *  3. the HTTP server stops accepting connections and waits for the requests in flight (Fastify's close;
 *     a request arriving on a kept-alive connection meanwhile is answered 503);
 *  4. running jobs and webhook attempts are waited for until the deadline; the leases of those still
 *     running then are released, so the restarted server or another instance takes them over at once;
 *  5. the metrics listener and the database close.
 * Every wait ends at the one deadline; what runs past it is given up, never half-recorded (the work is
 * idempotent and retried, as after a crash).
 */
import type { Server } from 'node:http';
import type { ServerState } from './domain/health/readiness.js';
import type { InFlight } from './http/in-flight.js';
import type { JobRunner } from './jobs/runner.js';
import type { App } from './http/app-type.js';
import type { WebhookWorker } from './webhooks/worker.js';

export interface StoppableParts {
  readonly app: App;
  readonly state: ServerState;
  readonly inFlight: InFlight;
  readonly runner: JobRunner;
  readonly webhooks: WebhookWorker;
  readonly metricsServer: Server | undefined;
  closeStorage(): Promise<void>;
}

/** Settles with `work`, or after `ms` (the work goes on; the caller stops waiting for it). */
async function until(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function shutDownInOrder(parts: StoppableParts, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  const left = () => Math.max(0, deadline - Date.now());
  const started = Date.now();
  const step = (name: string) => parts.app.log.info({ ms: Date.now() - started }, `shutdown: ${name}`);
  parts.state.draining = true;
  // Both stop claiming at once, then wait for their work up to the deadline (step 4) while HTTP drains.
  const jobs = parts.runner.stop({ timeoutMs: left() });
  const webhooks = parts.webhooks.stop({ timeoutMs: left() });
  // Fastify closes the idle connections once, when close() begins; one that goes idle later (its answer
  // sent with `Connection: close`, app.ts, but a client slow to hang up) is closed by this sweep.
  const sweep = setInterval(() => parts.app.server.closeIdleConnections(), 250);
  const httpClosed = await until(parts.app.close(), left());
  clearInterval(sweep);
  step(httpClosed ? 'the HTTP server is closed' : 'the HTTP server did not close by the deadline');
  // Fastify's close does not wait for a handler whose client hung up (http/in-flight.ts).
  await parts.inFlight.drain(left());
  if (!httpClosed || parts.inFlight.count > 0) {
    parts.app.log.warn(
      { handlers: parts.inFlight.count },
      'shutdown: requests still running at the deadline; their clients get no answer and retry',
    );
    // Ends keep-alive and active sockets so that the process can exit (their handlers have been given up).
    parts.app.server.closeAllConnections();
  }
  await Promise.all([jobs, webhooks]);
  step('the job runner and the webhook worker stopped');
  if (parts.metricsServer) {
    parts.metricsServer.closeAllConnections();
    await new Promise<void>((resolve) => parts.metricsServer!.close(() => resolve()));
  }
  await parts.closeStorage();
  step('the database is closed');
}
