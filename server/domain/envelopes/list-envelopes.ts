/**
 * GET /envelopes: the account's envelopes newest first, cursor paging, filters and search.
 *
 * Every page is an index range walked newest first and stopped after `limit` rows (migration
 * 0013_envelope_list), so its cost does not grow with the number of envelopes:
 * - several statuses: one walk per status on (account_id, status, created_at, id), merged here; a single
 *   `status IN (…)` would make the database sort every envelope of those statuses;
 * - `q`: the terms index is asked first for at most PROBE_ROWS matches. Fewer means every match is known
 *   and the page is read by id; more means matches are common, so walking the list with the LIKE finds a
 *   page after a few rows. See search-terms.ts for what matches.
 */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { sql } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database, EnvelopeStatus } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { creatorEmails } from '../users/creators.js';
import { searchQuery, type SearchQuery } from '../../storage/search-terms.js';
import { summaryOf, SUMMARY_COLUMNS, type EnvelopeSummary, type SummaryRow } from './list-views.js';

export const DEFAULT_LIST_LIMIT = 25;
export const MAX_LIST_LIMIT = 100;
/** Term rows read to tell a rare query from a common one. */
export const PROBE_ROWS = 1000;

export interface EnvelopeListQuery {
  status?: EnvelopeStatus[];
  q?: string;
  created_from?: string;
  created_to?: string;
  template_id?: string;
  bulk_send_id?: string;
  /** `?mine=true`, resolved by the route to the caller's user id: only the envelopes that user created. */
  created_by_user_id?: string;
  limit?: number;
  cursor?: string;
}

export interface EnvelopeList {
  envelopes: EnvelopeSummary[];
  next_cursor: string | null;
}

interface Position {
  createdAt: string;
  id: string;
}

type EnvelopeSelect = SelectQueryBuilder<Database, 'envelopes', SummaryRow>;

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.createdAt}|${position.id}`).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  const [createdAt, id, extra] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!createdAt || !id || extra !== undefined) {
    throw new MoharError('validation_failed', 'cursor is not one this API gave out', {
      errors: [{ path: 'querystring/cursor', message: 'invalid cursor' }],
    });
  }
  return { createdAt, id };
}

/**
 * `2026-01-31` is that whole UTC day; a date-time is that instant. Both bounds are included (the end is returned
 * exclusive).
 */
function dateBound(value: string, end: boolean): string {
  const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = new Date(dayOnly ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(at.getTime())) {
    throw new MoharError('validation_failed', `${value} is not a date`, {
      errors: [{ path: `querystring/${end ? 'created_to' : 'created_from'}`, message: 'not a date' }],
    });
  }
  if (end && dayOnly) at.setUTCDate(at.getUTCDate() + 1);
  // Times are stored to the millisecond: the next millisecond is the first one after the bound.
  else if (end) at.setTime(at.getTime() + 1);
  return at.toISOString();
}

/** Envelope ids matching a rare query; 'common' when there are too many to list (or no word to look up). */
async function probe(
  db: Kysely<Database>,
  accountId: string,
  search: SearchQuery,
  probeRows: number,
): Promise<string[] | 'common'> {
  if (search.probe === null) return 'common';
  const rows = await db
    .selectFrom('envelope_search_terms')
    .select('envelope_id')
    .where('account_id', '=', accountId)
    .where('term', '>=', search.probe.from)
    .where('term', '<', search.probe.to)
    .limit(probeRows)
    .execute();
  return rows.length === probeRows ? 'common' : [...new Set(rows.map((r) => r.envelope_id))];
}

/** `probeRows` is for tests: 0 makes every query take the common-query path. */
export async function listEnvelopes(
  ctx: Context,
  accountId: string,
  query: EnvelopeListQuery,
  probeRows = PROBE_ROWS,
): Promise<EnvelopeList> {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const from = query.created_from === undefined ? undefined : dateBound(query.created_from, false);
  const to = query.created_to === undefined ? undefined : dateBound(query.created_to, true);
  const search = searchQuery(query.q);
  const ids = search ? await probe(ctx.db, accountId, search, probeRows) : undefined;
  if (Array.isArray(ids) && ids.length === 0) return { envelopes: [], next_cursor: null };
  const statuses = [...new Set(query.status ?? [])];

  const select = (status: readonly EnvelopeStatus[]): EnvelopeSelect => {
    let s = ctx.db.selectFrom('envelopes').select(SUMMARY_COLUMNS).where('account_id', '=', accountId);
    if (ctx.mode !== undefined) s = s.where('mode', '=', ctx.mode);
    if (status.length === 1) s = s.where('status', '=', status[0]!);
    if (status.length > 1) s = s.where('status', 'in', status);
    if (query.template_id !== undefined) s = s.where('template_id', '=', query.template_id);
    if (query.bulk_send_id !== undefined) s = s.where('bulk_send_id', '=', query.bulk_send_id);
    if (query.created_by_user_id !== undefined) s = s.where('created_by_user_id', '=', query.created_by_user_id);
    if (from !== undefined) s = s.where('created_at', '>=', from);
    if (to !== undefined) s = s.where('created_at', '<', to);
    if (Array.isArray(ids)) s = s.where('id', 'in', ids);
    if (search) s = s.where(sql<boolean>`search_text like ${search.like} escape '\\'`);
    // The first condition alone bounds the index range; the OR picks the exact place inside it (without the
    // bound PostgreSQL walks from the newest envelope and filters, reading every row before the cursor).
    if (after) {
      s = s
        .where('created_at', '<=', after.createdAt)
        .where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb('id', '<', after.id)]));
    }
    return s
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
  };

  // Known ids are few: one query, whatever the statuses. Otherwise one index walk per status.
  const walks = Array.isArray(ids) || statuses.length < 2 ? [statuses] : statuses.map((s) => [s]);
  const rows = (await Promise.all(walks.map((w) => select(w).execute()))).flat();
  if (walks.length > 1) {
    rows.sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    );
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    envelopes: await withRecipients(ctx.db, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}

/** The page's recipients and its creators' e-mails: two queries by key, after the walk. */
async function withRecipients(db: Kysely<Database>, page: SummaryRow[]): Promise<EnvelopeSummary[]> {
  if (page.length === 0) return [];
  const [recipients, emails] = await Promise.all([
    recipientsOf(db, page),
    creatorEmails(
      db,
      page.map((e) => e.created_by_user_id),
    ),
  ]);
  const byEnvelope = new Map<string, typeof recipients>();
  for (const r of recipients) byEnvelope.set(r.envelope_id, [...(byEnvelope.get(r.envelope_id) ?? []), r]);
  return page.map((e) => summaryOf(e, byEnvelope.get(e.id) ?? [], emails));
}

function recipientsOf(db: Kysely<Database>, page: SummaryRow[]) {
  return db
    .selectFrom('recipients')
    .select(['id', 'envelope_id', 'name', 'email', 'role', 'signature_method', 'sequence', 'status', 'position'])
    .where(
      'envelope_id',
      'in',
      page.map((e) => e.id),
    )
    .orderBy('envelope_id')
    .orderBy('position')
    .execute();
}
