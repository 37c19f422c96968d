/** English / हिन्दी. A select keeps it one control for keyboard and screen-reader users. */
import { useId } from 'react';
import { useI18n } from '../i18n/i18n';
import { LANGUAGE_NAMES, type Language } from '../i18n/strings';

export function LanguageSwitch() {
  const { language, setLanguage, t } = useI18n();
  const id = useId();
  return (
    <div className="language">
      <label htmlFor={id}>{t('lang.label')}</label>
      <select id={id} value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
        {(Object.keys(LANGUAGE_NAMES) as Language[]).map((code) => (
          <option key={code} value={code} lang={code}>
            {LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </div>
  );
}
