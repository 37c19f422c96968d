/**
 * /app/set-password?token=…: the public end of an invite or reset mail (rendered without a session). The token
 * is spent once; an expired or used link says what to do instead.
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { CONSOLE_BASE, useRouter } from '../../router';
import { usersPath } from './model';
import { passwordProblem, PasswordFields, type NewPassword } from './PasswordFields';
import './users.css';

export function SetPasswordPage() {
  const { t } = useT();
  const { query } = useRouter();
  const token = query.get('token') ?? '';
  const [value, setValue] = useState<NewPassword>({ password: '', repeat: '' });
  const [shownProblem, setShownProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [doneEmail, setDoneEmail] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = passwordProblem(value, t);
    setShownProblem(problem);
    if (problem) return;
    setBusy(true);
    setError(null);
    try {
      setDoneEmail(
        (
          await api<{ email: string }>('POST', usersPath('set-password/'), {
            json: { token, password: value.password },
          })
        ).email,
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const invalidLink = error instanceof ApiError && error.code === 'invalid_link';
  return (
    <main className="login" id="content">
      <div className="login-card">
        <h1>{t('password.set.title')}</h1>
        {doneEmail ? (
          <>
            <p className="notice notice-success" role="status">
              {t('password.set.done', { email: doneEmail })}
            </p>
            {/* A full page load: the app starts afresh at the login, with no token in the address. */}
            <a className="button primary" href={`${CONSOLE_BASE}/`}>
              {t('password.set.login')}
            </a>
          </>
        ) : token === '' || invalidLink ? (
          <>
            <p className="notice notice-error" role="alert">
              {t(token === '' ? 'password.set.noToken' : 'password.set.invalidLink')}
            </p>
            <a className="button" href={`${CONSOLE_BASE}/`}>
              {t('password.set.login')}
            </a>
          </>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <PasswordFields value={value} onChange={setValue} problem={shownProblem} />
            <ErrorNotice error={error} />
            <div className="form-actions">
              <button type="submit" className="button primary" disabled={busy}>
                {busy ? t('password.busy') : t('password.set.submit')}
              </button>
            </div>
          </form>
        )}
      </div>
    </main>
  );
}
