/**
 * Invite a user by e-mail with a role; the server mails the set-password link (72 h, single use). Without a mail
 * server the mail is only kept, so the console says no mail was sent and shows the link to hand over instead.
 */
import { useState, type FormEvent } from 'react';
import { Modal } from '../../../shared/Modal';
import { api, ApiError } from '../../api';
import { CopyField } from '../../components/CopyField';
import { ErrorNotice, RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { ROLES, roleKey, usersPath, type InvitedUser, type Role, type User } from './model';

function KeptInvitationDialog({ invited, onClose }: { invited: InvitedUser; onClose(): void }) {
  const { t } = useT();
  return (
    <Modal title={t('users.invite.keptTitle', { email: invited.email })} onClose={onClose}>
      <p>{t('users.invite.keptBody', { email: invited.email })}</p>
      <CopyField label={t('users.invite.keptLink')} value={invited.invitation.set_password_url ?? ''} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {t('users.invite.close')}
        </button>
      </div>
    </Modal>
  );
}

export function InviteForm({ onInvited }: { onInvited: (user: User) => void }) {
  const { t } = useT();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('sender');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ message: string; mailed: boolean } | null>(null);
  const [kept, setKept] = useState<InvitedUser | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    setKept(null);
    try {
      const user = await api<InvitedUser>('POST', usersPath(), { json: { email, role } });
      const mailed = user.invitation.mail_delivery === 'queued';
      setDone({ message: t(mailed ? 'users.invite.done' : 'users.invite.kept', { email: user.email }), mailed });
      setKept(!mailed && user.invitation.set_password_url ? user : null);
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
        <p className={done.mailed ? 'notice notice-success' : 'notice'} role="status">
          {done.message}
        </p>
      )}
      {kept && <KeptInvitationDialog invited={kept} onClose={() => setKept(null)} />}
    </section>
  );
}
