/**
 * The metrics' HTTP side: a hook that times every request by its route pattern, and the scrape endpoint
 * GET /metrics, on the main port or on a listener of its own (MOHAR_METRICS_LISTEN), behind an optional
 * bearer token (MOHAR_METRICS_TOKEN) compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { MoharError } from '../../common/errors.js';
import type { MetricsConfig } from '../config-ops.js';
import type { App } from '../http/app-type.js';
import { operationOf } from './operations.js';
import type { Metrics } from './registry.js';

export const METRICS_PATH = '/metrics';

/** Requests no route matched (404s, scanners) share one label: the raw URL would make the series unbounded. */
const UNMATCHED = 'unmatched';

export function installRequestTiming(app: App, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const seconds = reply.elapsedTime / 1000;
    const status = String(reply.statusCode);
    metrics.httpDuration.observe({ method: request.method, route, status }, seconds);
    const schema = request.routeOptions.schema as { operationId?: string } | undefined;
    const operation = operationOf(request.method, route, schema?.operationId);
    if (operation) {
      metrics.operationDuration.observe({ operation, outcome: reply.statusCode < 400 ? 'ok' : 'error' }, seconds);
    }
  });
}

/**
 * Both sides hashed first: timingSafeEqual needs equal lengths, and comparing digests keeps the token's
 * length from leaking through an early return.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

/** GET /metrics on the main app (hidden from the OpenAPI documents, like /healthz). */
export function metricsRoute(app: App, metrics: Metrics, config: MetricsConfig): void {
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (config.token !== undefined && !bearerMatches(request.headers.authorization, config.token)) {
      throw new MoharError('invalid_token', 'the metrics need Authorization: Bearer with MOHAR_METRICS_TOKEN');
    }
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}

/** GET /metrics on its own address: plain node:http, nothing else is served there. */
export async function listenForMetrics(metrics: Metrics, config: MetricsConfig): Promise<Server | undefined> {
  const listen = config.listen;
  if (!listen) return undefined;
  const server = createServer((request: IncomingMessage, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (config.token !== undefined && !bearerMatches(request.headers.authorization, config.token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
      return;
    }
    metrics.registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('collecting the metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
