/**
 * Issue 33, point 1: an in-flight Idempotency-Key belongs to a live process. Its row names this process
 * (LEASE_OWNER) and a lease that the request renews while it runs (holdLease); a row whose lease has passed was
 * left by a process that died (a crash, SIGKILL, a lost machine) and no longer blocks its key: a retry runs again
 * (idempotency.ts, findIdempotent). The lease is the job lease (MOHAR_JOB_LEASE_SECONDS): the same "taken for
 * dead after" for every claim Mohar keeps.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Context } from '../context.js';
import { iso } from '../time.js';

/** This process, as named in lease_owner: unique per start, so a restarted server does not own its past rows. */
export const LEASE_OWNER = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export function leaseUntil(ctx: Context, from: Date = ctx.now()): string {
  return iso(new Date(from.getTime() + ctx.config.jobLeaseSeconds * 1000));
}

/**
 * When an in-flight row's process is taken for dead: its lease's end, or for a row from before leases
 * (migration 0021) one lease after it was created.
 */
export function lapsesAt(ctx: Context, row: { lease_expires_at: string | null; created_at: string }): string {
  return row.lease_expires_at ?? leaseUntil(ctx, new Date(row.created_at));
}

/**
 * Renews this process's lease on the key while `run` runs: every third of the lease, so that two renewals may
 * be late before another process takes the key for abandoned. A failed renewal is dropped (the domain has no
 * logger; a storage that fails here fails the request too): the next one may succeed, and the worst case is a
 * retry that runs again while this one still finishes.
 */
export async function holdLease<T>(ctx: Context, accountId: string, key: string, run: () => Promise<T>): Promise<T> {
  const renew = async () => {
    try {
      await ctx.db
        .updateTable('idempotency_keys')
        .set({ lease_expires_at: leaseUntil(ctx) })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .where('lease_owner', '=', LEASE_OWNER)
        .execute();
    } catch {
      // the next renewal tries again
    }
  };
  const timer = setInterval(() => void renew(), (ctx.config.jobLeaseSeconds * 1000) / 3);
  timer.unref();
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}
