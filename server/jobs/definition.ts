/**
 * Typed jobs. A job kind (`jobKind`) is a name in the jobs table with the TypeBox schema of its payload; a
 * definition (`defineJob`) adds the handler, typed by that payload, and the dependencies it runs on (a Context, or
 * the part of one it needs). The server's list of definitions becomes the runner's handlers with `jobHandlers`,
 * each of which checks the stored payload against the schema before its handler sees it. A payload that does not
 * match makes the job dead at once (PermanentJobError), saying what is wrong: retrying cannot change a payload.
 *
 * Enqueue through `enqueue` / `enqueueOnce`: the payload's type is checked against the kind's at compile time.
 *
 * The kind and the handler are two values because the module that enqueues a job and the one that runs it often
 * import each other (a bulk chunk enqueues its successor; a mail's handler reads the outbox that enqueues it): the
 * kind is a leaf both import, the definition lives next to the operation it runs.
 */
import type { Kysely } from 'kysely';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Database } from '../storage/schema.js';
import { enqueueJobOnce, type EnqueueOptions, type EnqueueResult } from './queue.js';
import { PermanentJobError, type JobHandler, type JobHandlers, type JobRunInfo } from './runner.js';

export interface JobKind<K extends string = string, S extends TSchema = TSchema> {
  /** The name in jobs.kind. */
  readonly kind: K;
  /** What the payload must be; JSON-compatible (it is stored as JSON text). */
  readonly payload: S;
}

export type JobPayload<J extends JobKind> = Static<J['payload']>;

export function jobKind<const K extends string, S extends TSchema>(kind: K, payload: S): JobKind<K, S> {
  return { kind, payload };
}

/** The payload, typed, or a PermanentJobError naming the first problems. */
export function parseJobPayload<J extends JobKind>(job: J, payload: unknown): JobPayload<J> {
  if (Value.Check(job.payload, payload)) return payload as JobPayload<J>;
  const problems = [...Value.Errors(job.payload, payload)]
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message}`);
  throw new PermanentJobError(`${job.kind} payload does not fit the job: ${problems.join('; ') || 'no value'}`);
}

/** Everything enqueueJob takes but the kind and the payload. */
export type JobOptions = Omit<EnqueueOptions, 'kind' | 'payload'>;

/** enqueueJob for a typed kind: returns the job's id (the existing one's for a known dedupeKey). */
export async function enqueue<J extends JobKind>(
  db: Kysely<Database>,
  job: J,
  payload: JobPayload<J>,
  options: JobOptions = {},
): Promise<string> {
  return (await enqueueOnce(db, job, payload, options)).id;
}

/** enqueueJobOnce for a typed kind: also tells whether a new job was written. */
export async function enqueueOnce<J extends JobKind>(
  db: Kysely<Database>,
  job: J,
  payload: JobPayload<J>,
  options: JobOptions = {},
): Promise<EnqueueResult> {
  return enqueueJobOnce(db, { ...options, kind: job.kind, payload });
}

/** What the runner needs of a definition: its kind, and its handler bound to the dependencies `D`. */
export interface RunnableJob<D> {
  readonly kind: string;
  handlerFor(deps: D): JobHandler;
}

export interface JobDefinition<J extends JobKind, D> extends RunnableJob<D> {
  readonly kind: J['kind'];
  readonly job: J;
  /** Must be idempotent: a job runs at least once. */
  readonly handler: (deps: D, payload: JobPayload<J>, info: JobRunInfo) => Promise<void>;
}

export function defineJob<J extends JobKind, D>(
  job: J,
  handler: (deps: D, payload: JobPayload<J>, info: JobRunInfo) => Promise<void>,
): JobDefinition<J, D> {
  return {
    kind: job.kind,
    job,
    handler,
    handlerFor: (deps) => (payload, info) => handler(deps, parseJobPayload(job, payload), info),
  };
}

/** The runner's handlers for these definitions, bound to `deps`; two definitions of one kind are a mistake. */
export function jobHandlers<D>(deps: D, definitions: readonly RunnableJob<D>[]): JobHandlers {
  const handlers: Record<string, JobHandler> = {};
  for (const definition of definitions) {
    if (Object.hasOwn(handlers, definition.kind)) throw new Error(`two job definitions of kind ${definition.kind}`);
    handlers[definition.kind] = definition.handlerFor(deps);
  }
  return handlers;
}
