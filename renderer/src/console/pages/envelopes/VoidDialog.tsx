/**
 * Void an envelope: a reason is required (recipients and the audit trail see it); the server's refusal is shown in
 * words.
 */
import { useId, useState, type FormEvent } from 'react';
import { Modal } from '../../../shared/Modal';
import { api } from '../../api';
import { RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';

export function VoidDialog({
  envelopeId,
  onClose,
  onVoided,
}: {
  envelopeId: string;
  onClose(): void;
  onVoided(): void;
}) {
  const { t } = useT();
  const id = useId();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) {
      setError(t('envelopes.void.reasonRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/envelopes/${envelopeId}/void`, { json: { reason: reason.trim() } });
      onVoided();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Modal title={t('envelopes.void.title')} onClose={onClose}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <p>{t('envelopes.void.body')}</p>
        <label htmlFor={`${id}-reason`}>{t('envelopes.void.reason')}</label>
        <textarea
          id={`${id}-reason`}
          rows={3}
          maxLength={2000}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          autoFocus
        />
        {error !== null && (
          <p id={`${id}-error`} className="field-error" role="alert">
            <RefusalLines error={error} />
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            {t('envelopes.void.cancel')}
          </button>
          <button type="submit" className="button danger" disabled={busy}>
            {busy ? t('envelopes.void.busy') : t('envelopes.void.confirm')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
