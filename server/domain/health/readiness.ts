/**
 * Readiness (GET /readyz): may this instance take traffic now? Yes only when it is not shutting down, its
 * database answers with every migration of this build applied (and none it does not know), and its blob
 * store answers. Liveness (/healthz) stays a plain "the process serves HTTP": a database outage must take
 * instances out of the load balancer, not get them restarted in a loop.
 */
import { migrationDrift } from '../../storage/migrations/index.js';
import type { Context } from '../context.js';

/** What shutdown tells readiness: once draining, /readyz answers 503 while requests in flight finish. */
export interface ServerState {
  draining: boolean;
}

export type CheckName = 'shutdown' | 'database' | 'migrations' | 'blobs';

export interface Readiness {
  readonly ready: boolean;
  /** 'ok', or why the check failed (no secrets: error messages of the driver and the file system). */
  readonly checks: Readonly<Record<CheckName, string>>;
}

/** A check that does not answer within this is failed: a hung database must not hang the probe. */
const CHECK_TIMEOUT_MS = 2_000;

/** Runs a check: 'ok', the message it failed with, or that it did not answer in time. */
async function outcome(check: () => Promise<string>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
    });
    return await Promise.race([check(), timeout]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(ctx: Pick<Context, 'db' | 'blobs'>, state: ServerState): Promise<Readiness> {
  let drift: Awaited<ReturnType<typeof migrationDrift>> | undefined;
  const [database, blobs] = await Promise.all([
    // Reading the applied migrations is the database check too: it needs a working connection.
    outcome(async () => {
      drift = await migrationDrift(ctx.db);
      return 'ok';
    }),
    outcome(async () => {
      await ctx.blobs.probe();
      return 'ok';
    }),
  ]);
  let migrations = 'not checked: the database did not answer';
  if (drift && database === 'ok') {
    if (drift.missing.length > 0) migrations = `not applied: ${drift.missing.join(', ')}`;
    else if (drift.unknown.length > 0) migrations = `applied by a newer build: ${drift.unknown.join(', ')}`;
    else migrations = 'ok';
  }
  const checks = { shutdown: state.draining ? 'shutting down' : 'ok', database, migrations, blobs };
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
