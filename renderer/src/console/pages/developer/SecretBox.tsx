/** A secret shown in full (a new API key, the webhook secret), with a Copy button and what to do with it. */
import { useEffect, useId, useRef, useState } from 'react';
import { useT } from '../../i18n';

interface Props {
  label: string;
  value: string;
  warning?: string;
  /** Move keyboard focus to the secret when it appears (a one-time reveal: read it out, copy it). */
  focus?: boolean;
}

export function SecretBox({ label, value, warning, focus = false }: Props) {
  const { t } = useT();
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focus) input.current?.focus();
  }, [focus, value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // No clipboard permission (an insecure origin, a refused prompt): select it so Ctrl+C works.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('no');
    }
  };
  return (
    <div className="secret-box">
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input
          ref={input}
          id={id}
          className="secret-value"
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          spellCheck={false}
        />
        <button type="button" className="button small" onClick={() => void copy()}>
          {t('developer.copy')}
        </button>
      </div>
      <p role="status" className="small">
        {copied === 'yes' ? t('developer.copied') : copied === 'no' ? t('developer.copyManually') : ''}
      </p>
      {warning && <p className="notice secret-warning">{warning}</p>}
    </div>
  );
}
