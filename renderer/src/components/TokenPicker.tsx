/**
 * The tokens Mohar Desktop sees and their certificates: name, issuer, validity and class, so the signer picks
 * the right one. Certificates that cannot sign are shown with the reason, and cannot be picked.
 */
import type { TokenCertificate, TokenInfo } from '../../../common/desktop-bridge';
import { useI18n } from '../i18n/i18n';

export interface Choice {
  slotId: string;
  certificateId: string;
}

interface Props {
  tokens: readonly TokenInfo[];
  selected: Choice | null;
  onSelect: (choice: Choice) => void;
}

export function TokenPicker({ tokens, selected, onSelect }: Props) {
  const { t, language } = useI18n();
  const date = (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime())
      ? iso
      : new Intl.DateTimeFormat(language === 'hi' ? 'hi-IN' : 'en-IN', { dateStyle: 'medium' }).format(d);
  };
  const usable = (token: TokenInfo, c: TokenCertificate) => c.usableForSigning && !token.pinLocked;
  return (
    <fieldset className="token-picker">
      <legend>{t('dsc.tokenList')}</legend>
      {tokens.length === 0 && <p role="status">{t('dsc.noTokens')}</p>}
      {tokens.map((token) => (
        <div key={token.slotId} className="token">
          <p className="token-name">
            {t('dsc.token', { label: token.label, manufacturer: token.manufacturer, model: token.model })}
          </p>
          {token.pinLocked && <p className="error">{t('dsc.locked')}</p>}
          {!token.pinLocked && token.pinFinalTry && <p className="warning">{t('dsc.finalTry')}</p>}
          <ul className="certificates">
            {token.certificates.map((c) => (
              <li key={c.id}>
                <label className={usable(token, c) ? 'certificate' : 'certificate disabled'}>
                  <input
                    type="radio"
                    name="certificate"
                    value={`${token.slotId}/${c.id}`}
                    disabled={!usable(token, c)}
                    checked={selected?.slotId === token.slotId && selected.certificateId === c.id}
                    onChange={() => onSelect({ slotId: token.slotId, certificateId: c.id })}
                  />
                  <span className="certificate-text">
                    <strong>{c.commonName || c.subject}</strong>
                    <span>{t('dsc.issuer', { issuer: c.issuer })}</span>
                    <span>{t('dsc.validity', { from: date(c.notBefore), to: date(c.notAfter) })}</span>
                    <span>{c.certificateClass ? t('dsc.class', { class: c.certificateClass }) : t('dsc.noClass')}</span>
                    {c.problems.length > 0 && (
                      <span className="error">{t('dsc.notUsable', { reasons: c.problems.join('; ') })}</span>
                    )}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </fieldset>
  );
}
