/**
 * Keyset paging, newest first, shared by the listings that page on (a time column, id) descending with a
 * `before` cursor: the id of the last row of the previous page (jobs, the mail outbox, webhook deliveries and
 * attempts). Rows come in `limit + 1` at a time; the extra one only says whether a next page exists.
 */
import type { ExpressionBuilder, ReferenceExpression } from 'kysely';
import { MoharError } from '../../common/errors.js';

/** Where the previous page ended: its last row's time and id. */
export interface PageCursor {
  readonly time: string;
  readonly id: string;
}

export interface NewestFirstPage<V> {
  items: V[];
  /** Pass as `before` for the next page; null on the last page. */
  next_before: string | null;
}

/** The asked-for page size, made a whole number from 1 to `max`. */
export function pageLimit(requested: number, max: number): number {
  return Math.min(Math.max(Math.trunc(requested), 1), max);
}

/** A `before` that names no row of this listing: a 422 saying what to pass instead. */
export function unknownCursor(before: string, what: string): MoharError {
  return new MoharError('validation_failed', `before: no ${what} ${before} (pass next_before of the previous page)`, {
    errors: [{ path: 'querystring/before', message: `names no ${what}` }],
  });
}

/** The rows after the cursor in (time, id) descending order: older, or as old with a smaller id. */
export function olderThan<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  time: ReferenceExpression<DB, TB>,
  id: ReferenceExpression<DB, TB>,
  cursor: PageCursor,
) {
  return eb.or([eb(time, '<', cursor.time), eb.and([eb(time, '=', cursor.time), eb(id, '<', cursor.id)])]);
}

/** The page of `limit` views out of `limit + 1` rows, and the cursor of the next one. */
export function newestFirstPage<R, V extends { readonly id: string }>(
  rows: readonly R[],
  limit: number,
  view: (row: R) => V,
): NewestFirstPage<V> {
  const items = rows.slice(0, limit).map(view);
  return { items, next_before: rows.length > limit ? items[items.length - 1]!.id : null };
}
