/**
 * The hash chain of an envelope's audit trail. Pure: no database here.
 *
 * Each row's `hash` is the SHA-256 (lowercase hex) of the UTF-8 bytes of the canonical JSON of the
 * row's other columns:
 *
 *   {"account_id":…,"action":…,"actor_id":…,"actor_type":…,"at":…,"details":…,"envelope_id":…,"prev_hash":…,"seq":…}
 *
 * Canonical JSON is RFC 8785 (JCS) for these values: keys sorted, no whitespace, strings escaped as
 * JSON.stringify does. `details` enters as its stored text (itself canonical JSON of an object), `seq`
 * as an integer, `actor_id` may be null. `prev_hash` is the previous row's `hash`, 64 zeros for seq 1.
 * So a changed, deleted, inserted or moved row breaks the chain from that row on; only rows cut from
 * the END of a chain leave no trace inside it (pass an anchor, e.g. from a certificate of completion).
 */
import { hash } from 'node:crypto';
import { MoharError } from '../../common/errors.js';
import type { AuditEventsTable } from '../storage/schema.js';

export const GENESIS_HASH = '0'.repeat(64);

// 'user': a console user (issue 15), e.g. who created the envelope.
export const ACTOR_TYPES = ['api_key', 'user', 'recipient', 'system', 'admin'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export type AuditRow = AuditEventsTable;

function writeCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeCanonical).join(',')}]`;
  const entries = Object.keys(value)
    .sort() // UTF-16 code unit order, as RFC 8785 asks
    .map((k) => `${JSON.stringify(k)}:${writeCanonical((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * Canonical JSON text of a JSON-compatible value: object keys sorted, no whitespace. Values go
 * through JSON first (toJSON applies, so Dates become ISO strings; undefined members are dropped).
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new MoharError('internal_error', `audit details must be JSON: ${(error as Error).message}`, { cause: error });
  }
  if (text === undefined) throw new MoharError('internal_error', 'audit details must be JSON');
  return writeCanonical(JSON.parse(text));
}

/** The columns that are hashed (every one but `hash`), in canonical (sorted) order. */
const HASHED_COLUMNS = [
  'account_id',
  'action',
  'actor_id',
  'actor_type',
  'at',
  'details',
  'envelope_id',
  'prev_hash',
  'seq',
] as const;

/**
 * The exact text that is hashed for a row (every column except `hash`): canonicalJson of those columns.
 * Every create writes a row, so the usual case (strings, numbers, null) is written directly, which gives
 * the same text without canonicalJson's JSON round trip; anything else takes canonicalJson itself.
 */
export function hashInput(row: Omit<AuditRow, 'hash'>): string {
  let text = '{';
  for (const column of HASHED_COLUMNS) {
    const value: unknown = row[column];
    if (value !== null && typeof value !== 'string' && typeof value !== 'number') {
      return canonicalJson(Object.fromEntries(HASHED_COLUMNS.map((c) => [c, row[c]])));
    }
    text += `${text.length === 1 ? '' : ','}"${column}":${JSON.stringify(value)}`;
  }
  return `${text}}`;
}

export function hashAuditRow(row: Omit<AuditRow, 'hash'>): string {
  return hash('sha256', hashInput(row), 'hex');
}

/** Why a chain is broken, at `firstBadSeq`. */
export type ChainProblem =
  /** No row with this seq: the row was deleted (the next one has a higher seq). */
  | 'missing_row'
  /** The list is not in seq order (listAudit always sorts; a caller's list may not be). */
  | 'out_of_order'
  /** Two rows claim this seq. */
  | 'duplicate_seq'
  /** The row's columns do not give its hash: it was edited after it was written. */
  | 'hash_mismatch'
  /** The row is intact but was written as another seq: rows were swapped or moved. */
  | 'reordered'
  /** prev_hash is not the previous row's hash: a row before it was replaced (hash recomputed) or inserted. */
  | 'broken_link'
  /** The row belongs to another envelope. */
  | 'wrong_envelope'
  /** The chain is shorter than its anchor: rows were cut from the end. */
  | 'truncated'
  /** The anchored seq has another hash: the chain was rewritten up to there (hashes recomputed). */
  | 'anchor_mismatch';

export interface ChainReport {
  readonly ok: boolean;
  /** Rows checked. */
  readonly count: number;
  /** Hash of the last row (the value to anchor elsewhere), when the chain is intact and not empty. */
  readonly headHash?: string;
  readonly firstBadSeq?: number;
  readonly reason?: ChainProblem;
  /** The problem for people. */
  readonly message?: string;
}

/** A known head of the chain, kept outside the table (a certificate, an export, a log line). */
export interface ChainAnchor {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Checks a whole chain, in the order given (listAudit returns it by seq). Stops at the first problem
 * and reports its seq (for a missing row, the seq that is missing).
 */
export function verifyAuditChain(rows: readonly AuditRow[], anchor?: ChainAnchor): ChainReport {
  const bad = (seq: number, reason: ChainProblem, message: string): ChainReport => ({
    ok: false,
    count: rows.length,
    firstBadSeq: seq,
    reason,
    message,
  });
  const envelopeId = rows[0]?.envelope_id;
  const seqs = new Set<number>();
  for (const row of rows) seqs.add(row.seq);
  let maxSeq = rows.length;
  for (const row of rows) if (Number.isSafeInteger(row.seq) && row.seq > maxSeq) maxSeq = row.seq;

  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const expected = i + 1;
    if (row.envelope_id !== envelopeId) {
      return bad(
        expected,
        'wrong_envelope',
        `seq ${row.seq} belongs to envelope ${row.envelope_id}, not ${envelopeId}`,
      );
    }
    if (row.seq !== expected) {
      if (row.seq < expected) return bad(row.seq, 'duplicate_seq', `seq ${row.seq} appears more than once`);
      if (seqs.has(expected)) {
        return bad(expected, 'out_of_order', `seq ${expected} is not in its place (found seq ${row.seq} there)`);
      }
      return bad(
        expected,
        'missing_row',
        row.seq === expected + 1 ? `seq ${expected} is missing` : `seqs ${expected} to ${row.seq - 1} are missing`,
      );
    }
    if (hashAuditRow(row) !== row.hash) {
      for (let s = 1; s <= maxSeq + 1; s++) {
        if (s !== row.seq && hashAuditRow({ ...row, seq: s }) === row.hash) {
          return bad(
            row.seq,
            'reordered',
            `the row at seq ${row.seq} is the event written as seq ${s}: rows were swapped or moved`,
          );
        }
      }
      return bad(
        row.seq,
        'hash_mismatch',
        `seq ${row.seq} (${row.action}) was changed after it was written: its columns do not give its hash`,
      );
    }
    const prevHash = i === 0 ? GENESIS_HASH : rows[i - 1]!.hash;
    if (row.prev_hash !== prevHash) {
      return bad(
        row.seq,
        'broken_link',
        i === 0
          ? 'seq 1 does not start the chain (prev_hash is not 64 zeros)'
          : `seq ${row.seq} does not follow seq ${row.seq - 1}: prev_hash is not its hash (seq ${row.seq - 1} was rewritten, or a row was replaced)`,
      );
    }
  }
  const head = rows.at(-1);
  if (anchor) {
    if (rows.length < anchor.seq) {
      return bad(rows.length + 1, 'truncated', `the chain ends at seq ${rows.length}, the anchor is seq ${anchor.seq}`);
    }
    if (rows[anchor.seq - 1]?.hash !== anchor.hash) {
      return bad(
        anchor.seq,
        'anchor_mismatch',
        `seq ${anchor.seq} does not have the anchored hash: the chain was rewritten`,
      );
    }
  }
  return head ? { ok: true, count: rows.length, headHash: head.hash } : { ok: true, count: 0 };
}
