/**
 * Counts route handlers that are still running, so shutdown can wait for them before closing storage:
 * Fastify's close() does not wait for a handler whose client already hung up.
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

export interface InFlight {
  /** Resolves when no handler is running (or after `timeoutMs`). */
  drain(timeoutMs?: number): Promise<void>;
  readonly count: number;
}

export function trackHandlers(app: FastifyInstance): InFlight {
  let count = 0;
  let waiters: (() => void)[] = [];
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function counted(this: FastifyInstance, request, reply) {
      count++;
      try {
        return await handler.call(this, request, reply);
      } finally {
        count--;
        if (count === 0) {
          for (const wake of waiters) wake();
          waiters = [];
        }
      }
    } as RouteHandlerMethod;
  });
  return {
    get count() {
      return count;
    },
    drain(timeoutMs = 10_000) {
      if (count === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
