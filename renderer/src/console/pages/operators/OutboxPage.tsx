/**
 * /operators: the mail outbox. Without an SMTP server mails are kept here (nothing is lost): "Open" shows a mail's
 * text and its links to copy and hand over; once a server is set, "Send again" queues a kept or failed mail.
 */
import { useId, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from '../developer/DeveloperFrame';
import { legacy } from '../developer/model';
import { MailDialog } from './MailDialog';
import { MAIL_STATUSES, mailTone, type OutboxMail, type Page } from './model';

export function OutboxPage(_props: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const statusId = useId();
  const [status, setStatus] = useState('');
  const [opened, setOpened] = useState<OutboxMail | null>(null);
  const [action, setAction] = useState<{ error: unknown; done: string | null }>({ error: null, done: null });
  const query = new URLSearchParams({ limit: '100', ...(status ? { status } : {}) }).toString();
  const outbox = useResource(
    (signal) => api<Page<OutboxMail>>('GET', legacy(`/mail/outbox/?${query}`), { signal }),
    [query],
  );
  const kept = outbox.data?.items.some((m) => m.status === 'kept') ?? false;
  const resend = async (mail: OutboxMail) => {
    setAction({ error: null, done: null });
    try {
      await api('POST', legacy(`/mail/outbox/${mail.id}/resend/`));
      setAction({ error: null, done: t('operators.outbox.requeued', { to: mail.to }) });
      outbox.reload();
    } catch (error) {
      setAction({ error, done: null });
    }
  };
  return (
    <DeveloperFrame area="operators" title="operators.outbox.title" intro="operators.outbox.intro">
      <div className="form-grid log-filters">
        <div className="form-field">
          <label htmlFor={statusId}>{t('operators.filterStatus')}</label>
          <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('developer.log.all')}</option>
            {MAIL_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`operators.mail.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="form-actions">
          <button type="button" className="button small" onClick={outbox.reload}>
            {t('developer.log.refresh')}
          </button>
        </div>
      </div>
      {kept && <p className="notice">{t('operators.outbox.keptHint')}</p>}
      <ErrorNotice error={outbox.error} onRetry={outbox.reload} />
      <ErrorNotice error={action.error} />
      <p role="status" className={action.done ? 'notice notice-success' : ''}>
        {action.done ?? ''}
      </p>
      {outbox.loading && !outbox.data && <p role="status">{t('console.loading')}</p>}
      {outbox.data && outbox.data.items.length === 0 && <p className="empty-state">{t('operators.outbox.empty')}</p>}
      {outbox.data && outbox.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="data outbox">
            <thead>
              <tr>
                <th>{t('operators.outbox.created')}</th>
                <th>{t('operators.outbox.to')}</th>
                <th>{t('operators.outbox.subject')}</th>
                <th>{t('operators.outbox.status')}</th>
                <th>{t('operators.outbox.attempts')}</th>
                <th>
                  <span className="visually-hidden">{t('developer.log.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {outbox.data.items.map((m) => (
                <tr key={m.id} data-mail={m.id}>
                  <td>{formatDate(m.created_at)}</td>
                  <td className="break">{m.to_name ? `${m.to_name} <${m.to}>` : m.to}</td>
                  <td>
                    {m.subject}
                    {m.envelope_id && (
                      <>
                        {' '}
                        · <Link to={`/envelopes/${m.envelope_id}`}>{t('operators.outbox.envelope')}</Link>
                      </>
                    )}
                  </td>
                  <td>
                    <span className={`badge ${mailTone(m.status)}`}>{t(`operators.mail.${m.status}`)}</span>
                    {m.test && (
                      <span className="badge" data-test-mail>
                        {' '}
                        {t('operators.mail.test')}
                      </span>
                    )}
                    {m.sent_at && <span className="small muted"> {formatDate(m.sent_at)}</span>}
                    {m.last_error && <div className="snippet">{m.last_error}</div>}
                  </td>
                  <td>{m.attempts}</td>
                  <td>
                    <button
                      type="button"
                      className="button small"
                      aria-label={t('operators.outbox.openLabel', { to: m.to })}
                      onClick={() => setOpened(m)}
                    >
                      {t('operators.outbox.open')}
                    </button>{' '}
                    {(m.status === 'kept' || m.status === 'failed') && !m.test && (
                      <button type="button" className="button small" onClick={() => void resend(m)}>
                        {t('operators.outbox.resend')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {opened && <MailDialog mail={opened} onClose={() => setOpened(null)} />}
    </DeveloperFrame>
  );
}
