/** The envelope list, one page at a time (cursor paging): the first page for a query, then "load more" appends. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../../api';
import type { EnvelopeListAnswer, EnvelopeSummary } from './types';

export const PAGE_SIZE = 25;

interface Pages {
  envelopes: EnvelopeSummary[];
  nextCursor: string | null;
  /** The first page is loading (a new query). */
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
}

export function useEnvelopePages(query: string) {
  const [pages, setPages] = useState<Pages>({
    envelopes: [],
    nextCursor: null,
    loading: true,
    loadingMore: false,
    error: undefined,
  });
  const [generation, setGeneration] = useState(0);
  const controller = useRef<AbortController | null>(null);

  const fetchPage = useCallback(
    (cursor: string | null, signal: AbortSignal) => {
      const params = new URLSearchParams(query);
      params.set('limit', String(PAGE_SIZE));
      if (cursor) params.set('cursor', cursor);
      return api<EnvelopeListAnswer>('GET', `/envelopes?${params.toString()}`, { signal });
    },
    [query],
  );

  useEffect(() => {
    const abort = new AbortController();
    controller.current = abort;
    setPages((previous) => ({ ...previous, loading: true, loadingMore: false, error: undefined }));
    fetchPage(null, abort.signal).then(
      (answer) =>
        !abort.signal.aborted &&
        setPages({
          envelopes: answer.envelopes,
          nextCursor: answer.next_cursor,
          loading: false,
          loadingMore: false,
          error: undefined,
        }),
      (error: unknown) =>
        !abort.signal.aborted &&
        setPages({ envelopes: [], nextCursor: null, loading: false, loadingMore: false, error }),
    );
    return () => abort.abort();
  }, [fetchPage, generation]);

  const loadMore = useCallback(() => {
    const signal = controller.current?.signal;
    if (!signal || !pages.nextCursor || pages.loadingMore) return;
    setPages((previous) => ({ ...previous, loadingMore: true, error: undefined }));
    fetchPage(pages.nextCursor, signal).then(
      (answer) =>
        !signal.aborted &&
        setPages((previous) => ({
          ...previous,
          envelopes: [...previous.envelopes, ...answer.envelopes],
          nextCursor: answer.next_cursor,
          loadingMore: false,
        })),
      (error: unknown) => !signal.aborted && setPages((previous) => ({ ...previous, loadingMore: false, error })),
    );
  }, [fetchPage, pages.nextCursor, pages.loadingMore]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...pages, loadMore, reload };
}
