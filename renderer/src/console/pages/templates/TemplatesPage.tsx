/** /templates: the account's templates, searchable by name, active or archived, only mine, with cursor paging. */
import { useEffect, useId, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { useResource } from '../../use-resource';
import type { TemplateList, TemplateListItem } from './model';
import './templates.css';

type ArchivedFilter = 'false' | 'true' | 'all';

function listPath(q: string, archived: ArchivedFilter, mine: boolean, cursor: string | null): string {
  const query = new URLSearchParams({ archived, limit: '50' });
  if (q) query.set('q', q);
  if (mine) query.set('mine', 'true');
  if (cursor) query.set('cursor', cursor);
  return `/templates?${query.toString()}`;
}

export function TemplatesPage(_props: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const { query, navigate } = useRouter();
  const q = query.get('q') ?? '';
  const archived = (
    ['true', 'all'].includes(query.get('archived') ?? '') ? query.get('archived') : 'false'
  ) as ArchivedFilter;
  const mine = query.get('mine') === 'true';
  const [search, setSearch] = useState(q);
  const [more, setMore] = useState<{ items: TemplateListItem[]; cursor: string | null } | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const list = useResource(
    (signal) => api<TemplateList>('GET', listPath(q, archived, mine, null), { signal }),
    [q, archived, mine],
  );
  const searchId = useId();
  const filterId = useId();
  useEffect(() => setMore(null), [q, archived, mine]);

  const apply = (nextQ: string, nextArchived: ArchivedFilter, nextMine = mine) => {
    const params = new URLSearchParams();
    if (nextQ.trim()) params.set('q', nextQ.trim());
    if (nextArchived !== 'false') params.set('archived', nextArchived);
    if (nextMine) params.set('mine', 'true');
    const text = params.toString();
    navigate(`/templates${text ? `?${text}` : ''}`, { replace: true });
  };
  const items = [...(list.data?.templates ?? []), ...(more?.items ?? [])];
  const cursor = more ? more.cursor : (list.data?.next_cursor ?? null);
  const loadMore = async () => {
    setMoreError(null);
    try {
      const page = await api<TemplateList>('GET', listPath(q, archived, mine, cursor));
      setMore({ items: [...(more?.items ?? []), ...page.templates], cursor: page.next_cursor });
    } catch (error) {
      setMoreError(error);
    }
  };
  const filtered = q !== '' || archived !== 'false' || mine;

  return (
    <>
      <div className="page-head">
        <h1>{t('templates.list.title')}</h1>
        <Link to="/templates/new" className="button primary">
          {t('templates.list.new')}
        </Link>
      </div>
      <form
        className="templates-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          apply(search, archived);
        }}
      >
        <div className="form-field">
          <label htmlFor={searchId}>{t('templates.list.search')}</label>
          <input
            id={searchId}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={t('templates.list.searchHint')}
          />
        </div>
        <div className="form-field">
          <label htmlFor={filterId}>{t('templates.list.show')}</label>
          <select id={filterId} value={archived} onChange={(e) => apply(search, e.target.value as ArchivedFilter)}>
            <option value="false">{t('templates.list.active')}</option>
            <option value="true">{t('templates.list.archived')}</option>
            <option value="all">{t('templates.list.all')}</option>
          </select>
        </div>
        <label className="check">
          <input type="checkbox" checked={mine} onChange={(e) => apply(search, archived, e.target.checked)} />
          {t('templates.list.mine')}
        </label>
        <button type="submit" className="button">
          {t('templates.list.searchButton')}
        </button>
      </form>
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <p role="status">{t('console.loading')}</p>}
      {list.data &&
        items.length === 0 &&
        (filtered ? (
          <section className="empty-state">
            <h2>{t('templates.list.noMatch')}</h2>
            <button
              type="button"
              className="button"
              onClick={() => {
                setSearch('');
                apply('', 'false', false);
              }}
            >
              {t('templates.list.clear')}
            </button>
          </section>
        ) : (
          <section className="empty-state">
            <h2>{t('templates.empty.title')}</h2>
            <p>{t('templates.empty.body')}</p>
            <div className="form-actions center">
              <Link to="/templates/new?from=envelope" className="button primary">
                {t('templates.empty.fromEnvelope')}
              </Link>
              <Link to="/templates/new?from=upload" className="button">
                {t('templates.empty.upload')}
              </Link>
            </div>
          </section>
        ))}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th>{t('templates.list.name')}</th>
                <th>{t('templates.list.version')}</th>
                <th className="hide-narrow">{t('templates.list.updated')}</th>
                <th>{t('templates.list.state')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.template_id}>
                  <td>
                    <Link to={`/templates/${item.template_id}`}>{item.name}</Link>
                  </td>
                  <td>{item.version}</td>
                  <td className="hide-narrow">{formatDate(item.updated_at)}</td>
                  <td>
                    {item.archived ? (
                      <span className="badge tone-warning">{t('templates.state.archived')}</span>
                    ) : (
                      <span className="badge tone-success">{t('templates.state.active')}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNotice error={moreError} />
      {cursor && (
        <div className="form-actions">
          <button type="button" className="button" onClick={() => void loadMore()}>
            {t('templates.list.more')}
          </button>
        </div>
      )}
    </>
  );
}
