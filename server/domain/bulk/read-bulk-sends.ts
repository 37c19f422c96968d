/**
 * GET /bulk-sends, GET /bulk-sends/{id} (counts from the rows themselves, failures with reasons), GET
 * /bulk-sends/{id}/envelopes.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { BulkSendsTable, Database, DataMode } from '../../storage/schema.js';
import type { Context } from '../context.js';

export interface BulkCounts {
  total: number;
  created: number;
  sent: number;
  failed: number;
  canceled: number;
  pending: number;
}

export interface BulkFailure {
  row_index: number;
  external_id: string | null;
  envelope_id: string | null;
  code: string;
  message: string;
}

/**
 * A bulk send of the account and, when given, of the caller's mode (the other mode's ids are not found, like
 * envelopes).
 */
export async function findBulkSend(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  mode?: DataMode,
): Promise<BulkSendsTable> {
  const row = await db
    .selectFrom('bulk_sends')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .$if(mode !== undefined, (q) => q.where('mode', '=', mode!))
    .executeTakeFirst();
  if (!row) throw new MoharError('bulk_send_not_found', `no bulk send ${id}`);
  return row;
}

/** Counted from the rows (indexed by bulk_send_id, status), so they can never drift from them. */
export async function rowCounts(db: Kysely<Database>, id: string): Promise<BulkCounts> {
  const groups = await db
    .selectFrom('bulk_send_rows')
    .select((eb) => [
      'status',
      eb.fn.countAll<number>().as('n'),
      eb.fn.count<number>('envelope_id').as('with_envelope'),
    ])
    .where('bulk_send_id', '=', id)
    .groupBy('status')
    .execute();
  const of = (status: string) => Number(groups.find((g) => g.status === status)?.n ?? 0);
  return {
    total: groups.reduce((sum, g) => sum + Number(g.n), 0),
    created: groups.reduce((sum, g) => sum + Number(g.with_envelope), 0),
    sent: of('sent'),
    failed: of('failed'),
    canceled: of('canceled'),
    pending: of('pending') + of('created'),
  };
}

function failure(r: {
  row_index: number;
  external_id: string | null;
  envelope_id: string | null;
  error: string | null;
}): BulkFailure {
  const reason = JSON.parse(r.error ?? '{}') as { code?: string; message?: string };
  return {
    row_index: Number(r.row_index),
    external_id: r.external_id,
    envelope_id: r.envelope_id,
    code: reason.code ?? 'failed',
    message: reason.message ?? '',
  };
}

export async function failuresOf(db: Kysely<Database>, id: string, limit = 10_000): Promise<BulkFailure[]> {
  const rows = await db
    .selectFrom('bulk_send_rows')
    .select(['row_index', 'external_id', 'envelope_id', 'error'])
    .where('bulk_send_id', '=', id)
    .where('status', '=', 'failed')
    .orderBy('row_index')
    .limit(limit)
    .execute();
  return rows.map(failure);
}

async function summary(db: Kysely<Database>, b: BulkSendsTable) {
  return {
    bulk_send_id: b.id,
    status: b.status as 'queued',
    source: {
      kind: b.source_kind as 'envelope',
      id: b.source_id,
      version: b.source_version === null ? null : Number(b.source_version),
    },
    counts: await rowCounts(db, b.id),
    created_at: b.created_at,
    updated_at: b.updated_at,
    started_at: b.started_at,
    completed_at: b.completed_at,
    canceled_at: b.canceled_at,
  };
}

export async function getBulkSend(ctx: Context, accountId: string, id: string) {
  const batch = await findBulkSend(ctx.db, accountId, id, ctx.mode);
  return { ...(await summary(ctx.db, batch)), failures: await failuresOf(ctx.db, id) };
}

function badCursor(): MoharError {
  return new MoharError('validation_failed', 'cursor is not one this API gave out', {
    errors: [{ path: 'querystring/cursor', message: 'invalid cursor' }],
  });
}

export async function listBulkSends(ctx: Context, accountId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 100;
  let select = ctx.db
    .selectFrom('bulk_sends')
    .selectAll()
    .where('account_id', '=', accountId)
    .$if(ctx.mode !== undefined, (q) => q.where('mode', '=', ctx.mode!));
  if (query.cursor !== undefined) {
    const [createdAt, id] = Buffer.from(query.cursor, 'base64url').toString().split('|');
    if (!createdAt || !id) throw badCursor();
    select = select.where((eb) =>
      eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]),
    );
  }
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    bulk_sends: await Promise.all(page.map((b) => summary(ctx.db, b))),
    next_cursor:
      rows.length > limit && last ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url') : null,
  };
}

/** The rows in order with their envelopes; the cursor is the last row_index seen. */
export async function listBulkEnvelopes(
  ctx: Context,
  accountId: string,
  id: string,
  query: { limit?: number; cursor?: string },
) {
  await findBulkSend(ctx.db, accountId, id, ctx.mode);
  const limit = query.limit ?? 100;
  let after = -1;
  if (query.cursor !== undefined) {
    after = Number(Buffer.from(query.cursor, 'base64url').toString());
    if (!Number.isInteger(after) || after < 0) throw badCursor();
  }
  const rows = await ctx.db
    .selectFrom('bulk_send_rows as r')
    .leftJoin('envelopes as e', 'e.id', 'r.envelope_id')
    .select(['r.row_index', 'r.envelope_id', 'r.external_id', 'r.status', 'r.error', 'e.status as envelope_status'])
    .where('r.bulk_send_id', '=', id)
    .where('r.row_index', '>', after)
    .orderBy('r.row_index')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    envelopes: page.map((r) => ({
      row_index: Number(r.row_index),
      envelope_id: r.envelope_id,
      external_id: r.external_id,
      status: r.status as 'pending',
      envelope_status: r.envelope_status ?? null,
      error: r.error === null ? null : failure(r).message,
    })),
    next_cursor: rows.length > limit && last ? Buffer.from(String(last.row_index)).toString('base64url') : null,
  };
}
