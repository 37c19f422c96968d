/**
 * /operators/retention: the account's retention policy (GET/PUT {api_base}/account/retention). Admins only, like
 * the other operators' pages: the server refuses a sender's PUT anyway (403 insufficient_role).
 */
import { useEffect, useId, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from '../developer/DeveloperFrame';

interface RetentionPolicy {
  retention_days: number | null;
}

export const MAX_RETENTION_DAYS = 36_500;

/** The typed days as the server's rule has them (a whole number 1..36500), or null when they break it. */
export function retentionDays(text: string): number | null {
  const days = Number(text.trim());
  return /^\d+$/.test(text.trim()) && days >= 1 && days <= MAX_RETENTION_DAYS ? days : null;
}

export function RetentionPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const daysId = useId();
  const policy = useResource((signal) => api<RetentionPolicy>('GET', '/account/retention', { signal }), []);
  const [enabled, setEnabled] = useState(false);
  const [days, setDays] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!policy.data) return;
    setEnabled(policy.data.retention_days !== null);
    setDays(policy.data.retention_days === null ? '' : String(policy.data.retention_days));
  }, [policy.data]);

  const wanted = enabled ? retentionDays(days) : null;
  const invalid = enabled && wanted === null;
  const dirty = policy.data !== undefined && !invalid && wanted !== policy.data.retention_days;
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await api<RetentionPolicy>('PUT', '/account/retention', { json: { retention_days: wanted } });
      setSaved(true);
      policy.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const current = policy.data?.retention_days;

  return (
    <DeveloperFrame area="operators" title="retention.title" intro="retention.intro">
      <ErrorNotice error={policy.error} onRetry={policy.reload} />
      {policy.loading && !policy.data && <p role="status">{t('console.loading')}</p>}
      {policy.data && (
        <section className="card" aria-labelledby="retention-policy">
          <h2 id="retention-policy">{t('retention.policy')}</h2>
          <p className="muted">
            {current == null ? t('retention.current.off') : t('retention.current.on', { days: current })}
          </p>
          <div className="retention-choice" role="radiogroup" aria-labelledby="retention-policy">
            <label>
              <input
                type="radio"
                name="retention"
                checked={!enabled}
                onChange={() => {
                  setEnabled(false);
                  setSaved(false);
                }}
              />{' '}
              {t('retention.off')}
            </label>
            <label>
              <input
                type="radio"
                name="retention"
                checked={enabled}
                onChange={() => {
                  setEnabled(true);
                  setSaved(false);
                }}
              />{' '}
              {t('retention.on')}
            </label>
          </div>
          {enabled && (
            <div className="form-field">
              <label htmlFor={daysId}>{t('retention.days')}</label>
              <input
                id={daysId}
                inputMode="numeric"
                value={days}
                aria-invalid={invalid || undefined}
                aria-describedby={`${daysId}-hint ${daysId}-error`}
                onChange={(e) => {
                  setDays(e.target.value);
                  setSaved(false);
                }}
              />
              <span id={`${daysId}-hint`} className="hint">
                {t('retention.daysHint')}
              </span>
              <span id={`${daysId}-error`} className="field-error" role={invalid && days ? 'alert' : undefined}>
                {invalid && days ? t('retention.daysInvalid') : ''}
              </span>
            </div>
          )}
          <p className="muted small">{t('retention.notes')}</p>
          <ErrorNotice error={error} />
          <div className="form-actions">
            <button type="button" className="button primary" disabled={busy || !dirty} onClick={() => void save()}>
              {t('retention.save')}
            </button>
          </div>
          <p role="status" className={saved && !dirty ? 'notice notice-success' : ''}>
            {saved && !dirty ? t('retention.saved') : dirty ? t('retention.unsaved') : ''}
          </p>
        </section>
      )}
    </DeveloperFrame>
  );
}
