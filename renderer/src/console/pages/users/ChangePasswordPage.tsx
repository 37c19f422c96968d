/** /account/password: the logged-in user changes their own password; their other sessions end. */
import { useRef, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useUser } from '../../session';
import { usersPath } from './model';
import { passwordProblem, PasswordFields, type NewPassword } from './PasswordFields';
import './users.css';

export function ChangePasswordPage() {
  const { t } = useT();
  const user = useUser();
  const [current, setCurrent] = useState('');
  const [value, setValue] = useState<NewPassword>({ password: '', repeat: '' });
  const [shownProblem, setShownProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const doneRef = useRef<HTMLParagraphElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = passwordProblem(value, t);
    setShownProblem(problem);
    if (problem) return;
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      await api('POST', usersPath('me/password/'), {
        json: { current_password: current, new_password: value.password },
      });
      setDone(true);
      setCurrent('');
      setValue({ password: '', repeat: '' });
      requestAnimationFrame(() => doneRef.current?.focus());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  // The server names the field it refuses (422 with errors[].path /current_password): said on that field.
  const wrongCurrent =
    error instanceof ApiError &&
    Array.isArray(error.problem.errors) &&
    (error.problem.errors as { path?: string }[]).some((e) => e.path === '/current_password');
  return (
    <section className="users-narrow">
      <div className="page-head">
        <h1>{t('password.change.title')}</h1>
      </div>
      <p className="muted">{user.email}</p>
      {done && (
        <p ref={doneRef} tabIndex={-1} className="notice notice-success" role="status">
          {t('password.change.done')}
        </p>
      )}
      <form className="card" onSubmit={(e) => void submit(e)} noValidate>
        <div className="form-field">
          <label htmlFor="current-password">{t('password.current')}</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            aria-invalid={wrongCurrent ? true : undefined}
            aria-describedby={wrongCurrent ? 'current-problem' : undefined}
            onChange={(e) => setCurrent(e.target.value)}
          />
          {wrongCurrent && (
            <span id="current-problem" className="field-error" role="alert">
              {(error as ApiError).message}
            </span>
          )}
        </div>
        <PasswordFields value={value} onChange={setValue} problem={shownProblem} />
        {!wrongCurrent && <ErrorNotice error={error} />}
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('password.busy') : t('password.change.submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
