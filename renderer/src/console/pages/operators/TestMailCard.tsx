/** "Send test mail": one mail now through the saved server; the server's acceptance or its error in words. */
import { useId, useState, type FormEvent } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useUser } from '../../session';
import { legacy } from '../developer/model';
import type { TestMailResult } from './mail-settings-model';

const ADDRESS = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+$/;

export function TestMailCard({ unsaved }: { unsaved: boolean }) {
  const { t } = useT();
  const id = useId();
  const user = useUser();
  const [to, setTo] = useState(user.email);
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ answer: TestMailResult; to: string } | null>(null);
  const [error, setError] = useState<unknown>(null);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const address = to.trim();
    setInvalid(!ADDRESS.test(address));
    if (!ADDRESS.test(address)) return;
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      const answer = await api<TestMailResult>('POST', legacy('/mail/settings/test/'), { json: { to: address } });
      setResult({ answer, to: address });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('mail.test.title')}</h2>
      <p className="muted">{t('mail.test.intro')}</p>
      <form onSubmit={(e) => void send(e)} noValidate className="form-grid">
        <div className="form-field">
          <label htmlFor={`${id}-to`}>{t('mail.test.to')}</label>
          <input
            id={`${id}-to`}
            type="email"
            value={to}
            aria-invalid={invalid ? true : undefined}
            aria-describedby={`${id}-error`}
            onChange={(e) => setTo(e.target.value)}
          />
          <span id={`${id}-error`} className="field-error" role={invalid ? 'alert' : undefined}>
            {invalid ? t('mail.error.fromAddress') : ''}
          </span>
        </div>
        <div className="form-actions">
          <button type="submit" className="button" disabled={busy || unsaved}>
            {busy ? t('mail.test.sending') : t('mail.test.send')}
          </button>
        </div>
      </form>
      {unsaved && <p className="notice">{t('mail.test.saveFirst')}</p>}
      <ErrorNotice error={error} />
      <div role="status" className="test-mail-result">
        {result?.answer.sent === true && (
          <div className="notice notice-success">
            <p>{t('mail.test.sent', { server: result.answer.server, to: result.to })}</p>
          </div>
        )}
        {result?.answer.sent === false && (
          <div className="notice notice-error">
            <p>{t('mail.test.failed', { server: result.answer.server })}</p>
            <p>
              {t('mail.test.detail')}: <span lang="en">{result.answer.detail}</span>
            </p>
          </div>
        )}
      </div>
    </section>
  );
}
