/** Typing a signature: shown in the Kalam handwriting font (Latin and Devanagari), rendered to PNG on adoption. */
import '@fontsource/kalam/400.css';
import { useId } from 'react';
import { useI18n } from '../i18n/i18n';

export function TypeSignature({
  text,
  onText,
  label,
  maxLength = 100,
}: {
  text: string;
  onText: (text: string) => void;
  label?: string;
  maxLength?: number;
}) {
  const { t } = useI18n();
  const id = useId();
  return (
    <div className="type-signature">
      <label htmlFor={id}>{label ?? t('sig.typeLabel')}</label>
      <input
        id={id}
        type="text"
        value={text}
        maxLength={maxLength}
        autoComplete={maxLength > 20 ? 'name' : 'off'}
        onChange={(e) => onText(e.target.value)}
      />
      <div className="typed-preview" role="img" aria-label={`${t('sig.typePreview')}: ${text}`}>
        <span aria-hidden="true">{text}</span>
      </div>
    </div>
  );
}
