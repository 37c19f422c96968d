/**
 * Writing and reading the audit trail (table audit_events, migration 0004).
 *
 * appendAudit takes the next seq and the previous hash from the envelope's last row, inside a
 * transaction, so the event is written together with the change it records. Concurrency:
 *
 * - PostgreSQL: the envelope row is locked first (SELECT … FOR NO KEY UPDATE, the lock an ordinary
 *   UPDATE of the envelope takes), so appends to one envelope are serialized; appends to different
 *   envelopes do not wait for each other. A transaction that updates the envelope and appends in either
 *   order takes this one lock, so the two cannot deadlock. Needs READ COMMITTED (the default): under
 *   REPEATABLE READ the second writer would not see the first one's row after the wait.
 * - SQLite: Kysely runs every transaction on the one connection, one at a time, so appends never race
 *   inside a process; another process writing at the same moment makes one of them fail with
 *   SQLITE_BUSY rather than fork the chain.
 * - Either way the primary key (envelope_id, seq) refuses a second row with the same seq, so a race
 *   that got past the above fails instead of forking the chain. When appendAudit opens the
 *   transaction itself (it is given the Kysely instance, not a transaction), it retries such a
 *   failure once; inside the caller's transaction the error goes to the caller, whose transaction
 *   is aborted anyway (PostgreSQL) and who should retry it whole.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../common/errors.js';
import { isUniqueViolation } from '../storage/connect.js';
import { isPostgres } from '../storage/migrations/dialect.js';
import type { Database } from '../storage/schema.js';
import {
  ACTOR_TYPES,
  GENESIS_HASH,
  canonicalJson,
  hashAuditRow,
  verifyAuditChain,
  type ActorType,
  type AuditRow,
  type ChainReport,
} from './chain.js';

export interface AuditEntry {
  readonly envelopeId: string;
  /** When given, must be the envelope's account (else envelope_not_found); the row always takes the envelope's. */
  readonly accountId?: string;
  readonly actorType: ActorType;
  /** API key id, recipient id, admin user id; null for the system. */
  readonly actorId?: string | null;
  /**
   * "noun.verb", e.g. envelope.created, recipient.signed, document.sealed: the actions Mohar writes are listed in
   * common/audit-actions.ts (the console words each); others are accepted if they look like "noun.verb".
   */
  readonly action: string;
  /** Whatever the caller knows: method, consent, ip, user_agent, reason, document_sha256… (see README). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Default: now. Pass `ctx.now()` so tests can move time. */
  readonly at?: Date | string;
}

const ACTION_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;

function programmingError(message: string): MoharError {
  return new MoharError('internal_error', `audit entry: ${message}`);
}

interface Prepared {
  readonly envelopeId: string;
  readonly accountId: string | undefined;
  readonly actorType: ActorType;
  readonly actorId: string | null;
  readonly action: string;
  readonly details: string;
  readonly at: string;
}

function prepare(entry: AuditEntry): Prepared {
  if (!(ACTOR_TYPES as readonly string[]).includes(entry.actorType)) {
    throw programmingError(`unknown actor type "${entry.actorType}"`);
  }
  if (entry.action.length > 100 || !ACTION_PATTERN.test(entry.action)) {
    throw programmingError(`the action "${entry.action}" is not of the form noun.verb`);
  }
  const details = entry.details ?? {};
  if (typeof details !== 'object' || details === null || Array.isArray(details)) {
    throw programmingError('details must be an object');
  }
  let at: string;
  if (entry.at === undefined) at = new Date().toISOString();
  else if (entry.at instanceof Date) {
    if (Number.isNaN(entry.at.getTime())) throw programmingError('invalid time');
    at = entry.at.toISOString();
  } else {
    // Stored times are fixed-width ISO-8601 UTC, so they sort as text (storage/schema.ts).
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(entry.at) || Number.isNaN(Date.parse(entry.at))) {
      throw programmingError(`the time "${entry.at}" is not ISO-8601 UTC`);
    }
    at = entry.at;
  }
  return {
    envelopeId: entry.envelopeId,
    accountId: entry.accountId,
    actorType: entry.actorType,
    actorId: entry.actorId ?? null,
    action: entry.action,
    details: canonicalJson(details),
    at,
  };
}

async function appendIn(trx: Kysely<Database>, p: Prepared): Promise<AuditRow> {
  let lock = trx.selectFrom('envelopes').select('account_id').where('id', '=', p.envelopeId);
  if (isPostgres(trx as unknown as Kysely<unknown>)) lock = lock.forNoKeyUpdate();
  const envelope = await lock.executeTakeFirst();
  if (!envelope || (p.accountId !== undefined && envelope.account_id !== p.accountId)) {
    throw new MoharError('envelope_not_found', `no envelope ${p.envelopeId}`);
  }
  const last = await trx
    .selectFrom('audit_events')
    .select(['seq', 'hash'])
    .where('envelope_id', '=', p.envelopeId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const unhashed: Omit<AuditRow, 'hash'> = {
    envelope_id: p.envelopeId,
    seq: (last ? Number(last.seq) : 0) + 1,
    account_id: envelope.account_id,
    at: p.at,
    actor_type: p.actorType,
    actor_id: p.actorId,
    action: p.action,
    details: p.details,
    prev_hash: last?.hash ?? GENESIS_HASH,
  };
  const row: AuditRow = { ...unhashed, hash: hashAuditRow(unhashed) };
  await trx.insertInto('audit_events').values(row).execute();
  return row;
}

/**
 * The first row of a new envelope's chain (seq 1, after the genesis hash), for the transaction that
 * inserts the envelope: no one else can append to an envelope that is not committed yet, so this needs
 * neither the lock nor the read of the last row that appendAudit makes. The caller inserts the row.
 * Throws internal_error for a malformed entry, as appendAudit does.
 */
export function firstAuditRow(entry: AuditEntry & { readonly accountId: string }): AuditRow {
  const p = prepare(entry);
  const unhashed: Omit<AuditRow, 'hash'> = {
    envelope_id: p.envelopeId,
    seq: 1,
    account_id: entry.accountId,
    at: p.at,
    actor_type: p.actorType,
    actor_id: p.actorId,
    action: p.action,
    details: p.details,
    prev_hash: GENESIS_HASH,
  };
  return { ...unhashed, hash: hashAuditRow(unhashed) };
}

function isRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isUniqueViolation(error) || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'));
}

/**
 * Appends one event to the envelope's chain and returns the row written. Give it the caller's
 * transaction to record the event atomically with the change; given the Kysely instance, it opens
 * a transaction of its own (and retries once when another writer took the same seq).
 *
 * Throws envelope_not_found (no such envelope, or not of `accountId`) and internal_error (a malformed
 * entry: unknown actor type, action not "noun.verb", details not a JSON object, bad time).
 */
export async function appendAudit(db: Kysely<Database>, entry: AuditEntry): Promise<AuditRow> {
  const prepared = prepare(entry);
  if (db.isTransaction) return appendIn(db, prepared);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => appendIn(trx, prepared));
    } catch (error) {
      if (attempt >= 2 || !isRace(error)) throw error;
    }
  }
}

/** The envelope's chain in seq order (optionally only when it belongs to `accountId`). */
export async function listAudit(
  db: Kysely<Database>,
  envelopeId: string,
  options: { accountId?: string } = {},
): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_events').selectAll().where('envelope_id', '=', envelopeId);
  if (options.accountId !== undefined) query = query.where('account_id', '=', options.accountId);
  const rows = await query.orderBy('seq').execute();
  // pg returns integer columns as numbers already; keep it explicit for drivers that do not.
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/** Loads and checks one envelope's chain. */
export async function verifyEnvelopeAudit(db: Kysely<Database>, envelopeId: string): Promise<ChainReport> {
  return verifyAuditChain(await listAudit(db, envelopeId));
}

/** Envelope ids that have audit events, in id order, a page at a time (`after`: the last id of the previous page). */
export async function auditedEnvelopeIds(
  db: Kysely<Database>,
  options: { after?: string; limit?: number } = {},
): Promise<string[]> {
  let query = db.selectFrom('audit_events').select('envelope_id').distinct();
  if (options.after !== undefined) query = query.where('envelope_id', '>', options.after);
  const rows = await query
    .orderBy('envelope_id')
    .limit(options.limit ?? 500)
    .execute();
  return rows.map((r) => r.envelope_id);
}

/** The API shape of an event: details parsed. */
export interface AuditEventView {
  seq: number;
  at: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

export function auditEventView(row: AuditRow): AuditEventView {
  return {
    seq: row.seq,
    at: row.at,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    action: row.action,
    details: JSON.parse(row.details) as Record<string, unknown>,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}
