/**
 * A sandbox mock DSC request (view.sandbox): no token and no desktop; the server signs with an ephemeral
 * self-signed test certificate in the signer's name (POST …/mock-dsc). The page says plainly that the result
 * is not a legally trusted DSC.
 */
import { useState } from 'react';
import type { SignerApi } from '../api';
import { useI18n } from '../i18n/i18n';
import type { ActResult } from '../types';
import { ConsentCheckbox } from './ConsentCheckbox';

interface Props {
  api: SignerApi;
  ready: () => boolean;
  consent: boolean;
  onConsent: (value: boolean) => void;
  onFinished: (result: ActResult) => void;
  onDecline: () => void;
  alert: string | null;
}

export function SandboxPanel({ api, ready, consent, onConsent, onFinished, onDecline, alert }: Props) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const sign = async () => {
    setError(null);
    if (!ready()) return;
    setBusy(true);
    try {
      onFinished(await api.signWithTestCertificate());
    } catch (failure) {
      setError(t('act.failed', { message: failure instanceof Error ? failure.message : String(failure) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <footer className="action-bar dsc-panel">
      <h2>{t('sandbox.title')}</h2>
      <p className="muted">{t('sandbox.intro')}</p>
      <ConsentCheckbox text="sandbox.consent" checked={consent} onChange={onConsent} />
      <div role="alert" className="action-alert">
        {error ?? alert}
      </div>
      <div className="actions">
        <button type="button" className="button danger-outline" onClick={onDecline} disabled={busy}>
          {t('act.decline')}
        </button>
        <button type="button" className="button primary" onClick={() => void sign()} disabled={busy} aria-busy={busy}>
          {busy ? t('act.working') : t('sandbox.sign')}
        </button>
      </div>
    </footer>
  );
}
