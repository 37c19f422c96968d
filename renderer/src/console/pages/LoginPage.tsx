/** Login with the account's e-mail and password; failures and lockouts said in words. */
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { RefusalLines } from '../components/ErrorNotice';
import { useT } from '../i18n';
import { useSession } from '../session';
import { ForgotPassword } from './users/ForgotPassword';

export function LoginPage({ ended }: { ended: boolean }) {
  const { t } = useT();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [forgot, setForgot] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await session.logIn(email, password);
    } catch (failure) {
      // Wrong e-mail or password needs no detail; a lockout's detail says how long it lasts.
      setError(
        failure instanceof ApiError && failure.code === 'invalid_credentials'
          ? t('login.error.invalid_credentials')
          : failure,
      );
      setBusy(false);
    }
  };

  if (forgot) {
    return (
      <main className="login" id="content">
        <ForgotPassword initialEmail={email} onBack={() => setForgot(false)} />
      </main>
    );
  }
  return (
    <main className="login" id="content">
      <form
        className="login-card"
        onSubmit={(e) => void submit(e)}
        aria-describedby={error ? 'login-error' : undefined}
      >
        <h1>{t('login.title')}</h1>
        {ended && (
          <p className="notice" role="status">
            {t('console.sessionEnded')}
          </p>
        )}
        <label htmlFor="login-email">{t('login.email')}</label>
        <input
          id="login-email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="login-password">{t('login.password')}</label>
        <input
          id="login-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error !== null && (
          <p id="login-error" className="error" role="alert">
            <RefusalLines error={error} />
          </p>
        )}
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? t('login.busy') : t('login.submit')}
        </button>
        <button type="button" className="button link-button" onClick={() => setForgot(true)}>
          {t('password.forgot.link')}
        </button>
        <p className="muted small">{t('login.firstStart')}</p>
      </form>
    </main>
  );
}
