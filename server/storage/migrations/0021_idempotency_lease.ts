import type { Kysely } from 'kysely';

/**
 * Issue 33, point 1: an Idempotency-Key in flight belongs to a live process. lease_owner names the process
 * (host:pid:random) and lease_expires_at is renewed while its request runs; once it has passed, the process is
 * taken for dead (a crash, a SIGKILL) and a retry with the key runs again instead of answering
 * idempotency_in_progress until the key expires a day later. Both are null on done rows, and on in-flight rows
 * from before this migration (those lapse one lease after their created_at: domain/idempotency/lease.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('lease_expires_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('lease_expires_at').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('lease_owner').execute();
}
