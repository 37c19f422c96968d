/**
 * Writes a prepared draft (create-envelope.ts) in one commit: the envelope, its recipients, search terms,
 * documents and fields, the first audit row and the envelope.created event with its delivery, and the
 * request's Idempotency-Key row when given.
 *
 * - SQLite: through the fast path (prepared statements, a commit shared with the other writes of the moment).
 * - PostgreSQL: as one statement, every insert a data-modifying CTE and the delivery the main query: one
 *   round trip, atomic without an explicit transaction, and foreign keys are checked at the statement's end,
 *   when all its rows exist.
 */
import { MoharError } from '../../../common/errors.js';
import { isUniqueViolation } from '../../storage/connect.js';
import { insertRowsThen } from '../../storage/pg-statement.js';
import type { SqliteFastPath } from '../../storage/sqlite-fast-path.js';
import { accountDeliveryInsert } from '../../webhooks/fan-out.js';
import { announceDeliveries } from '../../webhooks/signal.js';
import type { Context } from '../context.js';
import { keyRow, KeyTakenMeanwhile, type KeyInCommit } from '../idempotency/idempotency.js';
import type { BulkOrigin, PreparedDraft } from './create-envelope.js';

/** The key of an Idempotency-Key request, stored done with its answer in the draft's commit. */
export interface KeyWithAnswer {
  readonly claim: KeyInCommit;
  readonly responseJson: string;
}

/** The rows of a draft, as written. */
type DraftRows = Omit<PreparedDraft, 'envelope'> & {
  readonly envelope: PreparedDraft['envelope'] & { search_text: string; events_seq: number };
};

/** KeyTakenMeanwhile when a concurrent request took the key: then nothing is written. */
export async function writeDraft(ctx: Context, draft: PreparedDraft, key?: KeyWithAnswer): Promise<void> {
  const rows: DraftRows = { ...draft, envelope: { ...draft.envelope, search_text: draft.searchText, events_seq: 1 } };
  let queued: boolean;
  try {
    // SQLite always has its fast path (storage/connect.ts); the one-statement write is PostgreSQL's.
    if (!ctx.sqlite && ctx.dialect !== 'postgres') throw new Error('a SQLite draft is written through the fast path');
    queued = ctx.sqlite ? await writeFast(ctx, ctx.sqlite, rows, key) : await writeStatement(ctx, rows, key);
  } catch (error) {
    if (isUniqueViolation(error)) {
      if (key && constraintOf(error) === 'idempotency_keys_pk') throw new KeyTakenMeanwhile(key.claim.key);
      const origin = draft.origin;
      if (origin && (await rowTaken(ctx, origin))) {
        throw new MoharError(
          'bulk_row_taken',
          `row ${origin.row_index} of bulk send ${origin.bulk_send_id} has its envelope already`,
        );
      }
      throw new MoharError(
        'external_id_conflict',
        `an envelope with external_id "${draft.envelope.external_id}" exists already in this account (${draft.envelope.mode ?? 'live'} envelopes)`,
      );
    }
    throw error;
  }
  // The delivery worker is woken once the delivery is committed.
  if (queued) await announceDeliveries(ctx.db);
}

function writeFast(
  ctx: Context,
  fast: SqliteFastPath,
  rows: DraftRows,
  key: KeyWithAnswer | undefined,
): Promise<boolean> {
  return fast.write(() => {
    if (key) insertKeyFast(fast, ctx, key);
    fast.insert('envelopes', rows.envelope);
    for (const recipient of rows.recipients) fast.insert('recipients', recipient);
    for (const term of rows.terms) fast.insert('envelope_search_terms', term);
    for (const document of rows.documents) fast.insert('envelope_documents', document);
    for (const field of rows.fields) fast.insert('fields', field);
    fast.insert('audit_events', rows.audit);
    fast.insert('events', rows.event.row);
    return (
      fast.runTemplate('envelope-created-delivery', (d) => accountDeliveryInsert(ctx.db, d), rows.event.delivery) > 0
    );
  });
}

/**
 * The key's done row in the fast path's write; a key already there is KeyTakenMeanwhile (the failed statement left
 * nothing).
 */
function insertKeyFast(fast: SqliteFastPath, ctx: Context, key: KeyWithAnswer): void {
  try {
    fast.insert('idempotency_keys', keyRow(key.claim, key.responseJson, ctx.now()));
  } catch (error) {
    if (isUniqueViolation(error)) throw new KeyTakenMeanwhile(key.claim.key);
    throw error;
  }
}

/**
 * PostgreSQL: one statement (storage/pg-statement.ts). A key taken by a concurrent request makes it wait for
 * that request's commit, then fail on the key's primary key (idempotency_keys_pk), leaving nothing.
 */
async function writeStatement(ctx: Context, rows: DraftRows, key: KeyWithAnswer | undefined): Promise<boolean> {
  const delivery = accountDeliveryInsert(ctx.db, rows.event.delivery).compile();
  const delivered = await insertRowsThen(
    ctx.db,
    [
      { table: 'idempotency_keys', rows: key ? [keyRow(key.claim, key.responseJson, ctx.now())] : [] },
      { table: 'envelopes', rows: [rows.envelope] },
      { table: 'recipients', rows: rows.recipients },
      { table: 'envelope_search_terms', rows: rows.terms },
      { table: 'envelope_documents', rows: rows.documents },
      { table: 'fields', rows: rows.fields },
      { table: 'audit_events', rows: [rows.audit] },
      { table: 'events', rows: [rows.event.row] },
    ],
    { sql: delivery.sql, parameters: delivery.parameters },
    ctx.postgres,
  );
  return delivered > 0n;
}

function constraintOf(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

async function rowTaken(ctx: Context, origin: BulkOrigin): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('envelopes')
    .select('id')
    .where('bulk_send_id', '=', origin.bulk_send_id)
    .where('row_index', '=', origin.row_index)
    .executeTakeFirst();
  return row !== undefined;
}
