/**
 * Waking the delivery worker as soon as deliveries are queued, instead of at its next poll.
 *
 * Deliveries are written inside the caller's transaction, so the wake-up must not outrun the commit:
 *  - PostgreSQL: NOTIFY inside the transaction is delivered only when it commits, to every server
 *    instance LISTENing on the channel (the worker holds one LISTEN connection).
 *  - SQLite: one process, one connection shared behind a mutex; a worker woken now queues its claim behind
 *    the open transaction, so it reads the rows once they are committed.
 */
import { PostgresAdapter, sql, type QueryExecutorProvider } from 'kysely';

export const WEBHOOK_CHANNEL = 'mohar_webhooks';

const listeners = new Set<() => void>();

/** Calls `listener` whenever deliveries are queued in this process (SQLite); returns the unsubscribe. */
export function onDeliveriesQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function isPostgresDb(db: QueryExecutorProvider): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Announces queued deliveries from inside the writing transaction. */
export async function announceDeliveries(trx: QueryExecutorProvider): Promise<void> {
  if (isPostgresDb(trx)) {
    await sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`.execute(trx);
    return;
  }
  for (const listener of listeners) listener();
}
