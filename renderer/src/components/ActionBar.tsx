/** Consent, the act (sign / approve / mark as reviewed) and decline, kept at the bottom of the screen. */
import { useI18n } from '../i18n/i18n';
import type { SignerAction } from '../types';
import { ConsentCheckbox } from './ConsentCheckbox';

interface Props {
  action: SignerAction;
  consent: boolean;
  onConsent: (value: boolean) => void;
  busy: boolean;
  alert: string | null;
  onSubmit: () => void;
  onDecline: () => void;
}

export function ActionBar({ action, consent, onConsent, busy, alert, onSubmit, onDecline }: Props) {
  const { t } = useI18n();
  const label = action === 'approve' ? t('act.approve') : action === 'review' ? t('act.review') : t('act.sign');
  return (
    <footer className="action-bar">
      <ConsentCheckbox
        text={action === 'sign' ? 'consent.sign' : 'consent.review'}
        checked={consent}
        onChange={onConsent}
      />
      <div role="alert" className="action-alert">
        {alert}
      </div>
      <div className="actions">
        <button type="button" className="button danger-outline" onClick={onDecline} disabled={busy}>
          {t('act.decline')}
        </button>
        <button type="button" className="button primary" onClick={onSubmit} disabled={busy} aria-busy={busy}>
          {busy ? t('act.working') : label}
        </button>
      </div>
    </footer>
  );
}
