/** "Forgot password?" under the login form: asks for a reset link. The answer is the same for every e-mail. */
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { usersPath } from './model';
import './users.css';

export function ForgotPassword({ initialEmail, onBack }: { initialEmail: string; onBack: () => void }) {
  const { t } = useT();
  const [email, setEmail] = useState(initialEmail);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', usersPath('password-reset/'), { json: { email } });
      setSentTo(email);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-card" onSubmit={(e) => void submit(e)}>
      <h1 ref={heading} tabIndex={-1}>
        {t('password.forgot.title')}
      </h1>
      {sentTo ? (
        <p className="notice notice-success" role="status">
          {t('password.forgot.done', { email: sentTo })}
        </p>
      ) : (
        <>
          <p className="muted small">{t('password.forgot.hint')}</p>
          <label htmlFor="forgot-email">{t('login.email')}</label>
          <input
            id="forgot-email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <ErrorNotice error={error} />
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('password.busy') : t('password.forgot.submit')}
          </button>
        </>
      )}
      <button type="button" className="button link-button" onClick={onBack}>
        {t('password.forgot.back')}
      </button>
    </form>
  );
}
