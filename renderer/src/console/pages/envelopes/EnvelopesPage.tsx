/**
 * /envelopes: every envelope of the account, newest first, with search and filters kept in the address.
 * First visit (nothing sent yet): an empty state that says how to start.
 */
import { useEffect } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { EnvelopeFilters } from './EnvelopeFilters';
import { EnvelopeTable } from './EnvelopeTable';
import { filtersFromQuery, hasFilters, NO_FILTERS, queryOf, type ListFilters } from './list-query';
import { useEnvelopePages } from './use-envelope-pages';
import './envelopes.css';

function FirstEnvelope() {
  const { t } = useT();
  return (
    <section className="empty-state">
      <h2>{t('envelopes.empty.title')}</h2>
      <p>{t('envelopes.empty.body')}</p>
      <Link to="/envelopes/new" className="button primary">
        {t('envelopes.new')}
      </Link>
    </section>
  );
}

function NoMatch({ onClear }: { onClear(): void }) {
  const { t } = useT();
  return (
    <section className="empty-state">
      <h2>{t('envelopes.noMatch.title')}</h2>
      <p>{t('envelopes.noMatch.body')}</p>
      <button type="button" className="button" onClick={onClear}>
        {t('envelopes.filter.clear')}
      </button>
    </section>
  );
}

export function EnvelopesPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const { query, navigate } = useRouter();
  const filters = filtersFromQuery(query);
  const apiQuery = queryOf(filters);
  const list = useEnvelopePages(apiQuery);
  const filtered = hasFilters(filters);
  useEffect(() => {
    document.title = `${t('envelopes.title')} · ${t('console.title')}`;
  }, [t]);

  const applyFilters = (next: ListFilters) => {
    const search = queryOf(next);
    if (search !== apiQuery) navigate(`/envelopes${search ? `?${search}` : ''}`);
  };

  return (
    <>
      <div className="page-head">
        <h1>{t('envelopes.title')}</h1>
        <Link to="/envelopes/new" className="button primary">
          {t('envelopes.new')}
        </Link>
      </div>
      {(filtered || list.envelopes.length > 0) && <EnvelopeFilters filters={filters} onChange={applyFilters} />}
      <p className="visually-hidden" role="status" aria-live="polite">
        {list.loading ? t('console.loading') : t('envelopes.list.shown', { count: list.envelopes.length })}
      </p>
      {list.loading && list.envelopes.length === 0 && <p className="muted">{t('console.loading')}</p>}
      {!list.loading &&
        !list.error &&
        list.envelopes.length === 0 &&
        (filtered ? <NoMatch onClear={() => applyFilters(NO_FILTERS)} /> : <FirstEnvelope />)}
      {list.envelopes.length > 0 && (
        <div className={list.loading ? 'envelope-list is-loading' : 'envelope-list'} aria-busy={list.loading}>
          <EnvelopeTable envelopes={list.envelopes} />
        </div>
      )}
      <ErrorNotice error={list.error} onRetry={list.envelopes.length > 0 ? list.loadMore : list.reload} />
      {list.nextCursor && !list.loading && (
        <div className="env-load-more">
          <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
            {list.loadingMore ? t('console.loading') : t('envelopes.list.more')}
          </button>
        </div>
      )}
    </>
  );
}
