/**
 * A link to hand over by hand: a read-only box and a Copy button. Without clipboard permission (plain http, an
 * old browser) the text is selected so Ctrl+C still works.
 */
import { useId, useRef, useState } from 'react';
import { useT } from '../i18n';

export function CopyField({ label, value, copyLabel }: { label: string; value: string; copyLabel?: string }) {
  const { t } = useT();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input ref={input} id={id} type="text" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button primary" aria-label={copyLabel} onClick={() => void copy()}>
          {t('console.copy')}
        </button>
      </div>
      <p role="status" className="small">
        {copied ? t('console.copied') : ''}
      </p>
    </div>
  );
}
