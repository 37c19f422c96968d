/** /bulk-sends: the account's batches, newest first, with their status and progress. */
import { useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useResource } from '../../use-resource';
import { BulkProgress } from './BulkProgress';
import { statusTone, type BulkSend, type BulkSendList } from './model';
import './bulk.css';

export function BulkSendsPage(_props: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const list = useResource((signal) => api<BulkSendList>('GET', '/bulk-sends?limit=50', { signal }), []);
  const [more, setMore] = useState<{ items: BulkSend[]; cursor: string | null } | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const items = [...(list.data?.bulk_sends ?? []), ...(more?.items ?? [])];
  const cursor = more ? more.cursor : (list.data?.next_cursor ?? null);
  const loadMore = async () => {
    try {
      const page = await api<BulkSendList>('GET', `/bulk-sends?limit=50&cursor=${encodeURIComponent(cursor ?? '')}`);
      setMore({ items: [...(more?.items ?? []), ...page.bulk_sends], cursor: page.next_cursor });
    } catch (error) {
      setMoreError(error);
    }
  };
  return (
    <>
      <div className="page-head">
        <h1>{t('bulk.list.title')}</h1>
        <Link to="/bulk-sends/new" className="button primary">
          {t('bulk.list.new')}
        </Link>
      </div>
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <p role="status">{t('console.loading')}</p>}
      {list.data && items.length === 0 && (
        <section className="empty-state">
          <h2>{t('bulk.empty.title')}</h2>
          <p>{t('bulk.empty.body')}</p>
          <Link to="/bulk-sends/new" className="button primary">
            {t('bulk.list.new')}
          </Link>
        </section>
      )}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th>{t('bulk.list.created')}</th>
                <th>{t('bulk.list.source')}</th>
                <th>{t('bulk.list.status')}</th>
                <th>{t('bulk.list.progress')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((batch) => (
                <tr key={batch.bulk_send_id}>
                  <td>
                    <Link to={`/bulk-sends/${batch.bulk_send_id}`}>{formatDate(batch.created_at)}</Link>
                  </td>
                  <td>
                    {t(batch.source.kind === 'template' ? 'bulk.source.templateV' : 'bulk.source.envelope', {
                      version: batch.source.version ?? '',
                    })}
                  </td>
                  <td>
                    <span className={`badge ${statusTone(batch.status)}`}>{t(`bulk.status.${batch.status}`)}</span>
                  </td>
                  <td className="progress-cell">
                    <BulkProgress counts={batch.counts} compact />
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
            {t('bulk.list.more')}
          </button>
        </div>
      )}
    </>
  );
}
