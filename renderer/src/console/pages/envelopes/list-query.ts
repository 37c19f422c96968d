/**
 * The envelope list's filters live in the page address (?q=…&status=sent&status=completed&created_from=…), so a
 * filtered view can be bookmarked and back/forward step through the filters. The names are the API's own:
 * the same query string goes to GET {api_base}/envelopes.
 */
import { ENVELOPE_STATUSES, type EnvelopeStatus } from './types';

export interface ListFilters {
  q: string;
  status: EnvelopeStatus[];
  created_from: string;
  created_to: string;
  template_id: string;
  bulk_send_id: string;
  /** Only the envelopes the logged-in user created (?mine=true). */
  mine: boolean;
}

export const NO_FILTERS: ListFilters = {
  q: '',
  status: [],
  created_from: '',
  created_to: '',
  template_id: '',
  bulk_send_id: '',
  mine: false,
};
const SINGLE = ['q', 'created_from', 'created_to', 'template_id', 'bulk_send_id'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function filtersFromQuery(query: URLSearchParams): ListFilters {
  const filters: ListFilters = {
    ...NO_FILTERS,
    status: query
      .getAll('status')
      .filter((s): s is EnvelopeStatus => (ENVELOPE_STATUSES as readonly string[]).includes(s)),
    mine: query.get('mine') === 'true',
  };
  for (const name of SINGLE) filters[name] = (query.get(name) ?? '').trim();
  // A hand-edited address with a malformed date would only earn a 422; drop it instead.
  if (!DATE.test(filters.created_from)) filters.created_from = '';
  if (!DATE.test(filters.created_to)) filters.created_to = '';
  return filters;
}

/** The query string (without "?") for both the page address and the API call. */
export function queryOf(filters: ListFilters, extra: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  if (filters.q) query.set('q', filters.q);
  for (const status of filters.status) query.append('status', status);
  for (const name of SINGLE) if (name !== 'q' && filters[name]) query.set(name, filters[name]);
  if (filters.mine) query.set('mine', 'true');
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  return query.toString();
}

export function hasFilters(filters: ListFilters): boolean {
  return queryOf(filters) !== '';
}
