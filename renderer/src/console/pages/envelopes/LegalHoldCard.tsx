/**
 * An envelope's legal hold (PUT/DELETE {api_base}/envelopes/{id}/legal-hold): while set, the retention policy never
 * deletes its documents. For admins only (the server refuses a sender); not offered once the documents are deleted.
 */
import { useId, useState, type FormEvent } from 'react';
import { api } from '../../api';
import { RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import type { Envelope } from './types';

export function LegalHoldCard({ envelope, onChanged }: { envelope: Envelope; onChanged(message: string): void }) {
  const { t, formatDate } = useT();
  const id = useId();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const hold = envelope.legal_hold;

  const run = async (call: () => Promise<unknown>, message: string) => {
    setBusy(true);
    setError(null);
    try {
      await call();
      setReason('');
      onChanged(message);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const place = (event: FormEvent) => {
    event.preventDefault();
    void run(
      () => api('PUT', `/envelopes/${envelope.id}/legal-hold`, { json: { reason: reason.trim() } }),
      t('retention.hold.placedNotice'),
    );
  };
  const release = () =>
    void run(() => api('DELETE', `/envelopes/${envelope.id}/legal-hold`), t('retention.hold.releasedNotice'));

  if (envelope.purged_at && !hold) return null;
  return (
    <section className="card legal-hold" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('retention.hold.title')}</h2>
      {hold ? (
        <>
          <p className="notice notice-warning">{t('retention.hold.placed', { date: formatDate(hold.placed_at) })}</p>
          {hold.reason && (
            <p>
              <strong>{t('retention.hold.reason')}:</strong> {hold.reason}
            </p>
          )}
          <div className="form-actions">
            <button type="button" className="button" disabled={busy} onClick={release}>
              {t('retention.hold.release')}
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={place} noValidate>
          <p className="muted">{t('retention.hold.none')}</p>
          <div className="form-field">
            <label htmlFor={`${id}-reason`}>{t('retention.hold.reason')}</label>
            <input
              id={`${id}-reason`}
              maxLength={1000}
              value={reason}
              aria-describedby={`${id}-hint`}
              onChange={(e) => setReason(e.target.value)}
            />
            <span id={`${id}-hint`} className="hint">
              {t('retention.hold.reasonHint')}
            </span>
          </div>
          <div className="form-actions">
            <button type="submit" className="button" disabled={busy || reason.trim() === ''}>
              {t('retention.hold.place')}
            </button>
          </div>
        </form>
      )}
      {error !== null && (
        <p className="field-error" role="alert">
          <RefusalLines error={error} />
        </p>
      )}
    </section>
  );
}
