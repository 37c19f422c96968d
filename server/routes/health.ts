/**
 * Health checks for load balancers, orchestrators and the desktop app (the root page is the console:
 * console-page.ts). /healthz is liveness (the process serves HTTP); /readyz is readiness
 * (domain/health/readiness.ts). Both are hidden from the OpenAPI documents: they are for machines of the
 * operator, not API clients.
 */
import { problemFor } from '../http/problem.js';
import type { Context } from '../domain/context.js';
import { checkReadiness, type ServerState } from '../domain/health/readiness.js';
import type { App } from '../http/app-type.js';

export function healthRoutes(app: App, ctx: Context, state: ServerState): void {
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const readiness = await checkReadiness(ctx, state);
    if (readiness.ready) return { status: 'ok', checks: readiness.checks };
    const failed = Object.entries(readiness.checks).filter(([, result]) => result !== 'ok');
    const detail = `not ready: ${failed.map(([name, result]) => `${name} (${result})`).join('; ')}`;
    return reply
      .code(503)
      .type('application/problem+json')
      .send({ ...problemFor('not_ready', detail), checks: readiness.checks });
  });
}
