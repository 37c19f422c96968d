/** Invite a user by e-mail with a role; the server mails the set-password link (72 h, single use). */
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice, RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { ROLES, roleKey, usersPath, type Role, type User } from './model';

export function InviteForm({ onInvited }: { onInvited: (user: User) => void }) {
  const { t } = useT();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('sender');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const user = await api<User>('POST', usersPath(), { json: { email, role } });
      setDone(t('users.invite.done', { email: user.email }));
      setEmail('');
      onInvited(user);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  // 409 user_exists and 422 on the e-mail are said on the e-mail field.
  const emailError =
    error instanceof ApiError && (error.code === 'user_exists' || error.code === 'validation_failed') ? error : null;
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">{t('users.invite.title')}</h2>
      <p className="muted">{t('users.invite.hint')}</p>
      <form className="form-grid invite-form" onSubmit={(e) => void submit(e)}>
        <div className="form-field">
          <label htmlFor="invite-email">{t('users.invite.email')}</label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? 'invite-email-error' : undefined}
            onChange={(e) => setEmail(e.target.value)}
          />
          {emailError && (
            <span id="invite-email-error" className="field-error" role="alert">
              <RefusalLines error={emailError} />
            </span>
          )}
        </div>
        <div className="form-field">
          <label htmlFor="invite-role">{t('users.invite.role')}</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(roleKey(r))}
              </option>
            ))}
          </select>
        </div>
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('users.invite.busy') : t('users.invite.submit')}
          </button>
        </div>
      </form>
      {!emailError && <ErrorNotice error={error} />}
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
