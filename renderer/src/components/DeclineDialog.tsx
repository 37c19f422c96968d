/** Declining with a reason (required: the sender sees it). */
import { useId, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { Modal } from '../shared/Modal';

interface Props {
  busy: boolean;
  error: string | null;
  onDecline: (reason: string) => void;
  onClose: () => void;
}

export function DeclineDialog({ busy, error, onDecline, onClose }: Props) {
  const { t } = useI18n();
  const id = useId();
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  return (
    <Modal title={t('decline.title')} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim() === '') return setMissing(true);
          onDecline(reason.trim());
        }}
      >
        <label htmlFor={id}>{t('decline.reason')}</label>
        <textarea
          id={id}
          rows={4}
          maxLength={2000}
          value={reason}
          aria-required="true"
          aria-invalid={missing || undefined}
          onChange={(e) => {
            setReason(e.target.value);
            setMissing(false);
          }}
        />
        {missing && (
          <p className="error" role="alert">
            {t('decline.needReason')}
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            {t('decline.cancel')}
          </button>
          <button type="submit" className="button danger" disabled={busy}>
            {busy ? t('act.working') : t('decline.confirm')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
