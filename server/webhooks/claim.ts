/**
 * Claiming due deliveries: one UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING statement. On PostgreSQL
 * the inner SELECT is FOR UPDATE SKIP LOCKED, so concurrent instances never claim the same row; SQLite has
 * one writer, so the statement is atomic as it stands.
 *
 * A delivery is due when pending, its time has come, its endpoint is active, and no earlier event of the
 * same envelope to the same endpoint is in flight or not yet tried: a receiver gets an envelope's events in
 * order unless one fails (a failed one, waiting for its retry, no longer holds the others back).
 */
import type { Kysely, Selectable } from 'kysely';
import type { DialectName } from '../storage/connect.js';
import type { Database, WebhookDeliveriesTable } from '../storage/schema.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Values the compiled claim is built with, replaced by the real ones at each claim. */
const AT = '\u0001claim:at';
const LEASE = '\u0001claim:lease';
const OWNER = '\u0001claim:owner';
const LIMIT = -971_337;

function buildClaim(db: Kysely<Database>, dialect: DialectName) {
  let due = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', AT)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_endpoints as e')
          .select('e.id')
          .whereRef('e.id', '=', 'd.endpoint_id')
          .where('e.status', '=', 'active'),
      ),
    )
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select('p.id')
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('p.envelope_id', '=', 'd.envelope_id')
            .whereRef('p.sequence', '<', 'd.sequence')
            .where((eb) =>
              eb.or([
                eb('p.status', '=', 'delivering'),
                eb.and([eb('p.status', '=', 'pending'), eb('p.attempts', '=', 0)]),
              ]),
            ),
        ),
      ),
    )
    // The order of the (status, next_attempt_at) index, so the scan stops at the limit without sorting.
    .orderBy('d.next_attempt_at')
    .limit(LIMIT);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return (
    db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'delivering',
        attempts: eb('attempts', '+', 1),
        lease_owner: OWNER,
        lease_expires_at: LEASE,
        updated_at: AT,
      }))
      // Only the primary key here: a status test would make SQLite walk every pending row instead of the ids.
      // The inner SELECT chose pending rows; on PostgreSQL FOR UPDATE re-checks them once locked.
      .where('id', 'in', due)
      .returningAll()
      .compile()
  );
}

/**
 * Claims due deliveries for one worker. The statement is built and compiled once (building it costs more
 * than running it), then run with each claim's values.
 */
export class Claimer {
  private readonly compiled: ReturnType<typeof buildClaim>;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: DialectName,
  ) {
    this.compiled = buildClaim(db, dialect);
    for (const value of [AT, LEASE, OWNER, LIMIT]) {
      if (!this.compiled.parameters.includes(value)) {
        throw new Error(`the compiled claim lost its ${String(value)} parameter`);
      }
    }
  }

  async claim(options: { limit: number; owner: string; now: Date; leaseMs: number }): Promise<DeliveryRow[]> {
    const at = options.now.toISOString();
    const lease = new Date(options.now.getTime() + options.leaseMs).toISOString();
    const parameters = this.compiled.parameters.map((p) =>
      p === AT ? at : p === LEASE ? lease : p === OWNER ? options.owner : p === LIMIT ? options.limit : p,
    );
    const { rows } = await this.db.executeQuery<DeliveryRow>({ ...this.compiled, parameters });
    return rows.sort((a, b) =>
      a.next_attempt_at < b.next_attempt_at
        ? -1
        : a.next_attempt_at > b.next_attempt_at
          ? 1
          : Number(a.sequence) - Number(b.sequence),
    );
  }
}
