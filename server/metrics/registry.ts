/**
 * The server's Prometheus metrics (prom-client), one Registry per server instance: tests start several
 * servers in one process, and the global registry would mix their numbers (and refuse the second
 * registration of a name). Event counts and durations are recorded where they happen; the queue gauges are
 * read from the database when Prometheus scrapes (collectors.ts), so nothing polls between scrapes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Durations of requests and operations: 5 ms to 1 min (a signing act with a TSA round trip takes seconds). */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The user-facing operations whose end-to-end duration is measured (operations.ts maps routes to them). */
export type Operation = 'signing' | 'verification' | 'pdf_intake';

export interface Metrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly operationDuration: Histogram<'operation' | 'outcome'>;
  readonly pdfTaskDuration: Histogram<'task' | 'outcome'>;
  readonly pdfTasksInPool: Gauge;
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookFailures: Counter;
  readonly blobErrors: Counter<'operation'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'mohar_http_request_duration_seconds',
      help: 'HTTP requests by route pattern (never the raw URL), method and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    operationDuration: new Histogram({
      name: 'mohar_operation_duration_seconds',
      help: 'Signing acts, verifications and PDF uploads (intake), from request to answer',
      labelNames: ['operation', 'outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    pdfTaskDuration: new Histogram({
      name: 'mohar_pdf_task_duration_seconds',
      help: 'Tasks of the PDF worker pool, queue wait included',
      labelNames: ['task', 'outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    pdfTasksInPool: new Gauge({
      name: 'mohar_pdf_pool_tasks',
      help: 'Tasks in the PDF worker pool now (running or waiting for a worker)',
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'mohar_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded: a 2xx answer; failed: anything else)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookFailures: new Counter({
      name: 'mohar_webhook_failures_total',
      help: 'Webhook delivery attempts that failed (no answer, or not 2xx)',
      registers,
    }),
    blobErrors: new Counter({
      name: 'mohar_blob_store_errors_total',
      help: 'Blob store calls that failed (a missing blob on get counts too)',
      labelNames: ['operation'] as const,
      registers,
    }),
  };
}
