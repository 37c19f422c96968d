/** The envelope's title and message, who is signing, and the language switch. */
import { useI18n } from '../i18n/i18n';
import type { SignerView } from '../types';
import { LanguageSwitch } from '../shared/LanguageSwitch';

export function Header({ view }: { view: SignerView }) {
  const { t } = useI18n();
  const who = { name: view.recipient.name, email: view.recipient.email };
  const as =
    view.action === 'review'
      ? t('header.reviewingAs', who)
      : view.action === 'approve'
        ? t('header.approvingAs', who)
        : t('header.signingAs', who);
  return (
    <header className="header">
      <div className="header-text">
        <span className="brand">Mohar</span>
        <h1>{view.envelope.title}</h1>
        <p className="muted">{as}</p>
        {view.envelope.message && <p className="message">{view.envelope.message}</p>}
      </div>
      <LanguageSwitch />
    </header>
  );
}
