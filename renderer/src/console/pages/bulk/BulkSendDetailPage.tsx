/**
 * /bulk-sends/:id: a batch while it runs and after. The batch is polled every second while queued or running
 * (the progress bar and counts move), failed rows are listed with their reasons, every row links to its
 * envelope, and a running batch can be canceled (confirmed: rows already made stay ordinary envelopes).
 */
import { useEffect, useState } from 'react';
import { Modal } from '../../../shared/Modal';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useResource } from '../../use-resource';
import { BulkProgress } from './BulkProgress';
import { isRunning, statusTone, type BulkRowItem, type BulkRowList, type BulkSend } from './model';
import '../templates/templates.css';
import './bulk.css';

const POLL_MS = 1000;

function CancelDialog({ id, onDone, onClose }: { id: string; onDone(): void; onClose(): void }) {
  const { t } = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    try {
      await api('POST', `/bulk-sends/${id}/cancel`);
      onDone();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Modal title={t('bulk.cancel.title')} onClose={onClose}>
      <p>{t('bulk.cancel.body')}</p>
      <ErrorNotice error={error} />
      <div className="form-actions">
        <button type="button" className="button danger" disabled={busy} onClick={() => void confirm()}>
          {t('bulk.cancel.confirm')}
        </button>
        <button type="button" className="button" onClick={onClose}>
          {t('bulk.cancel.keep')}
        </button>
      </div>
    </Modal>
  );
}

/** The rows of the batch with their envelopes, reloaded when the batch's counts move. */
function RowTable({ id, version }: { id: string; version: string }) {
  const { t } = useT();
  const [extra, setExtra] = useState<{ items: BulkRowItem[]; cursor: string | null } | null>(null);
  const rows = useResource(
    (signal) => api<BulkRowList>('GET', `/bulk-sends/${id}/envelopes?limit=100`, { signal }),
    [id, version],
  );
  useEffect(() => setExtra(null), [version]);
  const items = [...(rows.data?.envelopes ?? []), ...(extra?.items ?? [])];
  const cursor = extra ? extra.cursor : (rows.data?.next_cursor ?? null);
  const more = async () => {
    const page = await api<BulkRowList>(
      'GET',
      `/bulk-sends/${id}/envelopes?limit=100&cursor=${encodeURIComponent(cursor ?? '')}`,
    );
    setExtra({ items: [...(extra?.items ?? []), ...page.envelopes], cursor: page.next_cursor });
  };
  return (
    <section className="card" aria-labelledby="rows-title">
      <h2 id="rows-title">{t('bulk.detail.rows')}</h2>
      <ErrorNotice error={rows.error} onRetry={rows.reload} />
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th>{t('bulk.detail.row')}</th>
              <th>{t('bulk.detail.externalId')}</th>
              <th>{t('bulk.detail.rowStatus')}</th>
              <th>{t('bulk.detail.envelope')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((row) => (
              <tr key={row.row_index}>
                <td>{row.row_index + 1}</td>
                <td>{row.external_id ?? '—'}</td>
                <td>
                  <span
                    className={`badge ${row.status === 'failed' ? 'tone-danger' : row.status === 'sent' ? 'tone-success' : ''}`}
                  >
                    {t(`bulk.row.${row.status}`)}
                  </span>
                  {row.error && <span className="field-error hide-narrow"> {row.error}</span>}
                </td>
                <td>
                  {row.envelope_id ? (
                    <Link to={`/envelopes/${row.envelope_id}`}>
                      {t('bulk.detail.open')}
                      {row.envelope_status ? ` (${row.envelope_status})` : ''}
                    </Link>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor && (
        <button type="button" className="button small" onClick={() => void more()}>
          {t('bulk.list.more')}
        </button>
      )}
    </section>
  );
}

export function BulkSendDetailPage({ params }: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const id = params.id!;
  const batch = useResource((signal) => api<BulkSend>('GET', `/bulk-sends/${id}`, { signal }), [id]);
  const [canceling, setCanceling] = useState(false);
  const data = batch.data;
  const running = data ? isRunning(data.status) : false;
  const { reload } = batch;
  useEffect(() => {
    if (!running || batch.loading) return undefined;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, batch.loading, data, reload]);

  if (!data) {
    return batch.error ? (
      <ErrorNotice error={batch.error} onRetry={batch.reload} />
    ) : (
      <p role="status">{t('console.loading')}</p>
    );
  }
  const { counts } = data;
  const failures = data.failures ?? [];
  const countsVersion = `${data.status}-${counts.created}-${counts.sent}-${counts.failed}-${counts.canceled}`;
  return (
    <>
      <p>
        <Link to="/bulk-sends">{t('bulk.detail.back')}</Link>
      </p>
      <div className="page-head">
        <h1>{t('bulk.detail.title', { date: formatDate(data.created_at) })}</h1>
        {running && (
          <button type="button" className="button danger" onClick={() => setCanceling(true)}>
            {t('bulk.detail.cancel')}
          </button>
        )}
      </div>
      <section className="card" aria-labelledby="progress-title">
        <h2 id="progress-title">
          {t('bulk.detail.status')}{' '}
          <span className={`badge ${statusTone(data.status)}`} role="status">
            {t(`bulk.status.${data.status}`)}
          </span>
        </h2>
        <BulkProgress counts={counts} />
        {batch.error !== undefined && running && <ErrorNotice error={batch.error} />}
        <dl className="facts">
          <dt>{t('bulk.detail.source')}</dt>
          <dd>
            {data.source.kind === 'template' ? (
              <Link to={`/templates/${data.source.id}`}>
                {t('bulk.source.templateV', { version: data.source.version ?? '' })}
              </Link>
            ) : (
              <Link to={`/envelopes/${data.source.id}`}>{t('bulk.source.envelope')}</Link>
            )}
          </dd>
          <dt>{t('bulk.detail.started')}</dt>
          <dd>{formatDate(data.started_at)}</dd>
          <dt>{t('bulk.detail.finished')}</dt>
          <dd>{formatDate(data.completed_at ?? data.canceled_at)}</dd>
        </dl>
        <p>
          <Link to={`/envelopes?bulk_send_id=${id}`}>{t('bulk.detail.inList')}</Link>
        </p>
      </section>
      {failures.length > 0 && (
        <section className="card" aria-labelledby="failures-title">
          <h2 id="failures-title">{t('bulk.detail.failures', { count: failures.length })}</h2>
          <ul className="failure-list">
            {failures.map((f) => (
              <li key={f.row_index}>
                <strong>{t('bulk.detail.rowN', { n: f.row_index + 1 })}</strong>
                {f.external_id ? ` (${f.external_id})` : ''}: {f.message} <code className="small">{f.code}</code>
                {f.envelope_id && (
                  <>
                    {' '}
                    · <Link to={`/envelopes/${f.envelope_id}`}>{t('bulk.detail.open')}</Link>
                  </>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <RowTable id={id} version={countsVersion} />
      {canceling && (
        <CancelDialog
          id={id}
          onClose={() => setCanceling(false)}
          onDone={() => {
            setCanceling(false);
            batch.reload();
          }}
        />
      )}
    </>
  );
}
