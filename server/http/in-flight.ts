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
  const done = () => {
    count--;
    if (count === 0) {
      for (const wake of waiters) wake();
      waiters = [];
    }
  };
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    // Not an async function: a callback-style handler (one that returns nothing and calls reply.send later,
    // like @fastify/static's) must stay synchronous, or Fastify sees a promise resolved with undefined and
    // ends the reply empty (the Swagger UI bundle was served as 0 bytes).
    route.handler = function counted(this: FastifyInstance, request, reply) {
      count++;
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        done();
        throw error;
      }
      if (isThenable(result)) return Promise.resolve(result).finally(done);
      // Callback-style handlers only stream files; they do not hold storage, so they are not waited for.
      done();
      return result;
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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
