/** A USB DSC signer in an ordinary browser: why the desktop app is needed, a mohar:// link, and how to get it. */
import { useId } from 'react';
import { useI18n } from '../i18n/i18n';
import { desktopDeepLink } from '../page-context';

export function DscNoBridge({ onDecline }: { onDecline: () => void }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <footer className="action-bar dsc-panel">
      <h2>{t('dsc.noBridge.title')}</h2>
      <p>{t('dsc.noBridge.body')}</p>
      <div className="actions start">
        <a className="button primary" href={desktopDeepLink()}>
          {t('dsc.noBridge.open')}
        </a>
        <button type="button" className="button danger-outline" onClick={onDecline}>
          {t('act.decline')}
        </button>
      </div>
      <p className="muted">{t('dsc.noBridge.get')}</p>
      <label htmlFor={id} className="muted">
        {t('dsc.noBridge.copy')}
      </label>
      <input
        id={id}
        className="copy-link"
        type="text"
        readOnly
        value={window.location.href}
        onFocus={(e) => e.target.select()}
      />
    </footer>
  );
}
