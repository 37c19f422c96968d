/** /operators/jobs: the account's background jobs (mail sending, …) by state; dead letters can be retried. */
import { useId, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from '../developer/DeveloperFrame';
import { legacy } from '../developer/model';
import { JOB_STATES, jobTone, type Job, type Page } from './model';

export function JobsPage(_props: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const stateId = useId();
  const [state, setState] = useState('');
  const [action, setAction] = useState<{ error: unknown; done: string | null }>({ error: null, done: null });
  const query = new URLSearchParams({ limit: '100', ...(state ? { state } : {}) }).toString();
  const jobs = useResource((signal) => api<Page<Job>>('GET', legacy(`/jobs/?${query}`), { signal }), [query]);
  const retry = async (job: Job) => {
    setAction({ error: null, done: null });
    try {
      await api('POST', legacy(`/jobs/${job.id}/retry/`));
      setAction({ error: null, done: t('operators.jobs.requeued', { kind: job.kind }) });
      jobs.reload();
    } catch (error) {
      setAction({ error, done: null });
    }
  };
  return (
    <DeveloperFrame area="operators" title="operators.jobs.title" intro="operators.jobs.intro">
      <div className="form-grid log-filters">
        <div className="form-field">
          <label htmlFor={stateId}>{t('operators.filterState')}</label>
          <select id={stateId} value={state} onChange={(e) => setState(e.target.value)}>
            <option value="">{t('developer.log.all')}</option>
            {JOB_STATES.map((s) => (
              <option key={s} value={s}>
                {t(`operators.job.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="form-actions">
          <button type="button" className="button small" onClick={jobs.reload}>
            {t('developer.log.refresh')}
          </button>
        </div>
      </div>
      <ErrorNotice error={jobs.error} onRetry={jobs.reload} />
      <ErrorNotice error={action.error} />
      <p role="status" className={action.done ? 'notice notice-success' : ''}>
        {action.done ?? ''}
      </p>
      {jobs.loading && !jobs.data && <p role="status">{t('console.loading')}</p>}
      {jobs.data && jobs.data.items.length === 0 && (
        <p className="empty-state">{t(state ? 'operators.jobs.emptyFiltered' : 'operators.jobs.empty')}</p>
      )}
      {jobs.data && jobs.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="data jobs">
            <thead>
              <tr>
                <th>{t('operators.jobs.created')}</th>
                <th>{t('operators.jobs.kind')}</th>
                <th>{t('operators.jobs.state')}</th>
                <th>{t('operators.jobs.attempts')}</th>
                <th>{t('operators.jobs.runAt')}</th>
                <th>{t('operators.jobs.error')}</th>
                <th>
                  <span className="visually-hidden">{t('developer.log.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.items.map((j) => (
                <tr key={j.id} data-job={j.id}>
                  <td>{formatDate(j.created_at)}</td>
                  <td>
                    <code>{j.kind}</code>
                  </td>
                  <td>
                    <span className={`badge ${jobTone(j.state)}`}>{t(`operators.job.${j.state}`)}</span>
                  </td>
                  <td>{t('developer.log.attemptsOfMax', { n: j.attempts, max: j.max_attempts })}</td>
                  <td>{j.state === 'queued' ? formatDate(j.run_at) : formatDate(j.finished_at)}</td>
                  <td className="snippet">{j.last_error ?? ''}</td>
                  <td>
                    {j.state === 'dead' && (
                      <button type="button" className="button small" onClick={() => void retry(j)}>
                        {t('operators.jobs.retry')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DeveloperFrame>
  );
}
