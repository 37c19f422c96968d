/**
 * The webhook delivery log: one row per event delivered (or being delivered), filtered by status and event
 * type, each opening its attempts (time, URL, attempt number, status code, duration, the start of the answer).
 * Polls while a delivery is pending; "Redeliver" sends one again at once, and a redelivered event that had
 * succeeded still shows when it was delivered.
 */
import { Fragment, useEffect, useId, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import {
  deliveryTone,
  DELIVERY_STATUSES,
  EVENT_TYPES,
  legacy,
  type Delivery,
  type DeliveryDetail,
  type Page,
} from './model';

const POLL_MS = 2000;
const PAGE_SIZE = 25;

function Attempts({ delivery }: { delivery: Delivery }) {
  const { t, formatDate } = useT();
  // Reloads whenever the list shows the delivery changed (a new attempt, a new state).
  const detail = useResource(
    (signal) => api<DeliveryDetail>('GET', legacy(`/webhook/deliveries/${delivery.id}/`), { signal }),
    [delivery.id, delivery.attempts, delivery.status],
  );
  if (detail.error) return <ErrorNotice error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return <p role="status">{t('console.loading')}</p>;
  if (detail.data.attempt_log.length === 0) return <p className="muted">{t('developer.log.noAttempts')}</p>;
  return (
    <table className="data attempts" aria-label={t('developer.log.attemptsOf', { type: delivery.event_type })}>
      <thead>
        <tr>
          <th>{t('developer.log.attempt')}</th>
          <th>{t('developer.log.time')}</th>
          <th>{t('developer.log.url')}</th>
          <th>{t('developer.log.code')}</th>
          <th>{t('developer.log.duration')}</th>
          <th>{t('developer.log.result')}</th>
          <th>{t('developer.log.response')}</th>
        </tr>
      </thead>
      <tbody>
        {detail.data.attempt_log.map((a) => (
          <tr key={a.id} data-attempt={a.attempt}>
            <td>{a.attempt}</td>
            <td>{formatDate(a.started_at)}</td>
            <td className="break">{a.webhook_url}</td>
            <td>{a.status_code ?? '—'}</td>
            <td>{t('developer.log.ms', { ms: a.duration_ms })}</td>
            <td>
              <span className={`badge ${a.success ? 'tone-success' : 'tone-danger'}`}>
                {t(a.success ? 'developer.log.ok' : 'developer.log.failed')}
              </span>
            </td>
            <td className="snippet">{a.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A delivery's state. One that had succeeded and was redelivered keeps its success in view (delivered_at stays on
 * the server): "Succeeded, delivered {at}" with the redelivery's state beside it, never a bare "Pending".
 */
function DeliveryState({ delivery: d }: { delivery: Delivery }) {
  const { t, formatDate } = useT();
  const redelivery = d.status !== 'succeeded' && d.delivered_at !== null;
  const label =
    d.status !== 'succeeded' && d.delivered_at !== null
      ? t(`developer.redelivery.${d.status}`)
      : t(`developer.status.${d.status}`);
  return (
    <span className="delivery-state">
      {redelivery && (
        <>
          <span className="badge tone-success">{t('developer.status.succeeded')}</span>{' '}
          <span className="small muted">{t('developer.log.deliveredAt', { at: formatDate(d.delivered_at) })}</span>{' '}
        </>
      )}
      <span className={`badge ${deliveryTone(d.status)}`}>{label}</span>
      {d.status === 'pending' && d.next_attempt_at && (
        <span className="small muted"> {t('developer.log.next', { at: formatDate(d.next_attempt_at) })}</span>
      )}
    </span>
  );
}

export function DeliveryLog({ generation }: { generation: number }) {
  const { t, formatDate } = useT();
  const statusId = useId();
  const typeId = useId();
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [actionError, setActionError] = useState<unknown>(null);
  const query = new URLSearchParams({
    limit: String(PAGE_SIZE),
    ...(status ? { status } : {}),
    ...(eventType ? { event_type: eventType } : {}),
  }).toString();
  const log = useResource(
    (signal) => api<Page<Delivery>>('GET', legacy(`/webhook/deliveries/?${query}`), { signal }),
    [query, generation],
  );
  // Older pages, fetched on demand for this filter (the first page alone is polled and refreshed).
  const [older, setOlder] = useState<{ query: string; items: Delivery[]; next: string | null } | null>(null);
  const olderItems = older?.query === query ? older.items : [];
  const items = [...(log.data?.items ?? []), ...olderItems.filter((d) => !log.data?.items.some((e) => e.id === d.id))];
  const next = older?.query === query ? older.next : (log.data?.next_before ?? null);
  const loadOlder = async () => {
    setActionError(null);
    try {
      const page = await api<Page<Delivery>>(
        'GET',
        legacy(`/webhook/deliveries/?${query}&before=${encodeURIComponent(next ?? '')}`),
      );
      setOlder({ query, items: [...olderItems, ...page.items], next: page.next_before });
    } catch (e) {
      setActionError(e);
    }
  };
  const waiting = log.data?.items.some((d) => d.status === 'pending' || d.status === 'delivering') ?? false;
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = setTimeout(log.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, log.data, log.reload]);

  const toggle = (id: string) =>
    setOpen((previous) => {
      const next = new Set(previous);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const redeliver = async (delivery: Delivery) => {
    setActionError(null);
    try {
      await api('POST', legacy(`/webhook/deliveries/${delivery.id}/redeliver/`));
      setOpen((previous) => new Set(previous).add(delivery.id));
      log.reload();
    } catch (e) {
      setActionError(e);
    }
  };

  return (
    <section className="card" aria-labelledby="delivery-log">
      <div className="page-head">
        <h2 id="delivery-log">{t('developer.log.title')}</h2>
        <button type="button" className="button small" onClick={log.reload} disabled={log.loading}>
          {t(log.loading ? 'developer.log.refreshing' : 'developer.log.refresh')}
        </button>
      </div>
      <div className="form-grid log-filters">
        <div className="form-field">
          <label htmlFor={statusId}>{t('developer.log.filterStatus')}</label>
          <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('developer.log.all')}</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`developer.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="form-field">
          <label htmlFor={typeId}>{t('developer.log.filterType')}</label>
          <select id={typeId} value={eventType} onChange={(e) => setEventType(e.target.value)}>
            <option value="">{t('developer.log.all')}</option>
            {EVENT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
      </div>
      {waiting && (
        <p className="muted small" role="status">
          {t('developer.log.polling')}
        </p>
      )}
      <ErrorNotice error={log.error} onRetry={log.reload} />
      <ErrorNotice error={actionError} />
      {log.data && items.length === 0 && (
        <p className="empty-log">{t(status || eventType ? 'developer.log.emptyFiltered' : 'developer.log.empty')}</p>
      )}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="data deliveries">
            <thead>
              <tr>
                <th>{t('developer.log.time')}</th>
                <th>{t('developer.log.event')}</th>
                <th>{t('developer.log.url')}</th>
                <th>{t('developer.log.status')}</th>
                <th>{t('developer.log.attempts')}</th>
                <th>{t('developer.log.code')}</th>
                <th>
                  <span className="visually-hidden">{t('developer.log.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <Fragment key={d.id}>
                  <tr data-delivery={d.id}>
                    <td>{formatDate(d.created_at)}</td>
                    <td>
                      <code>{d.event_type}</code>
                    </td>
                    <td className="break">{d.webhook_url}</td>
                    <td>
                      <DeliveryState delivery={d} />
                    </td>
                    <td>{t('developer.log.attemptsOfMax', { n: d.attempts, max: d.max_attempts })}</td>
                    <td>{d.last_status_code ?? '—'}</td>
                    <td className="row-actions">
                      <button
                        type="button"
                        className="button small"
                        aria-expanded={open.has(d.id)}
                        onClick={() => toggle(d.id)}
                      >
                        {t(open.has(d.id) ? 'developer.log.hideAttempts' : 'developer.log.showAttempts')}
                      </button>
                      <button
                        type="button"
                        className="button small"
                        disabled={d.status === 'delivering' || d.status === 'paused'}
                        onClick={() => void redeliver(d)}
                      >
                        {t('developer.log.redeliver')}
                      </button>
                    </td>
                  </tr>
                  {open.has(d.id) && (
                    <tr className="attempts-row">
                      <td colSpan={7}>
                        <Attempts delivery={d} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div className="form-actions">
          <button type="button" className="button small" onClick={() => void loadOlder()}>
            {t('developer.log.older')}
          </button>
        </div>
      )}
    </section>
  );
}
