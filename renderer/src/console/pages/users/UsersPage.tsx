/**
 * /users: the account's users (admins): invite, change a role, deactivate (asked first: it logs them out at
 * once). The server refuses what would leave the account without an active admin, in its own words.
 */
import { useState } from 'react';
import { Modal } from '../../../shared/Modal';
import { api, ApiError, type ConsoleUser } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useUser } from '../../session';
import { useResource } from '../../use-resource';
import { InviteForm } from './InviteForm';
import { UsersRefused } from './UsersRefused';
import { ROLES, roleKey, STATUS_TONE, usersPath, type Role, type User } from './model';
import './users.css';

function UserRow({
  user,
  isMe,
  onChanged,
  onDeactivate,
}: {
  user: User;
  isMe: boolean;
  onChanged: (message: string | null, error: unknown) => void;
  onDeactivate: (user: User) => void;
}) {
  const { t, formatDate } = useT();
  const [busy, setBusy] = useState(false);
  const changeRole = async (role: Role) => {
    setBusy(true);
    try {
      const changed = await api<User>('PATCH', usersPath(`${user.id}/`), { json: { role } });
      onChanged(t('users.roleChanged', { email: changed.email, role: t(roleKey(changed.role)) }), null);
    } catch (failure) {
      onChanged(null, failure);
    } finally {
      setBusy(false);
    }
  };
  const deactivated = user.status === 'deactivated';
  return (
    <tr>
      <td>
        {user.email}
        {isMe && <span className="you">{t('users.you')}</span>}
      </td>
      <td>
        <select
          aria-label={t('users.roleOf', { email: user.email })}
          value={user.role}
          disabled={busy || deactivated}
          onChange={(e) => void changeRole(e.target.value as Role)}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(roleKey(r))}
            </option>
          ))}
        </select>
      </td>
      <td>
        <span className={`badge ${STATUS_TONE[user.status]}`}>{t(`users.status.${user.status}`)}</span>
      </td>
      <td className="hide-narrow">{formatDate(user.created_at)}</td>
      <td>{user.last_login_at ? formatDate(user.last_login_at) : t('users.never')}</td>
      <td>
        {!deactivated && !isMe && (
          <button
            type="button"
            className="button small danger"
            onClick={() => onDeactivate(user)}
            aria-label={`${t('users.deactivate')}: ${user.email}`}
          >
            {t('users.deactivate')}
          </button>
        )}
      </td>
    </tr>
  );
}

/** A sender is refused before any call (the server would answer 403 insufficient_role): no list, no actions. */
export function UsersPage() {
  const me = useUser();
  return me.role === 'sender' ? <UsersRefused titleKey="users.title" /> : <UsersManager me={me} />;
}

function UsersManager({ me }: { me: ConsoleUser }) {
  const { t } = useT();
  const users = useResource((signal) => api<{ items: User[] }>('GET', usersPath(), { signal }), []);
  const [message, setMessage] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<User | null>(null);

  const outcome = (text: string | null, error: unknown) => {
    setMessage(text);
    setActionError(error);
    users.reload();
  };
  const deactivate = async (user: User) => {
    setConfirming(null);
    try {
      await api<User>('POST', usersPath(`${user.id}/deactivate/`));
      outcome(t('users.deactivated', { email: user.email }), null);
    } catch (failure) {
      outcome(null, failure);
    }
  };

  const items = users.data?.items ?? [];
  return (
    <>
      <div className="page-head">
        <h1>{t('users.title')}</h1>
        <Link to="/users/audit-log" className="button">
          {t('users.auditLink')}
        </Link>
      </div>
      <p className="muted">{t('users.intro')}</p>
      {/* A refusal (403) does not change by retrying; a failed load may. */}
      <ErrorNotice
        error={users.error}
        {...(users.error instanceof ApiError && users.error.status === 403 ? {} : { onRetry: users.reload })}
      />
      {message && (
        <p className="notice notice-success" role="status">
          {message}
        </p>
      )}
      <ErrorNotice error={actionError} />
      {users.data && (
        <section className="card">
          {/* At a phone's width the table scrolls inside its card, not the whole page. */}
          <div className="table-wrap">
            <table className="data users-table">
              <thead>
                <tr>
                  <th scope="col">{t('users.col.email')}</th>
                  <th scope="col">{t('users.col.role')}</th>
                  <th scope="col">{t('users.col.status')}</th>
                  <th scope="col" className="hide-narrow">
                    {t('users.col.created')}
                  </th>
                  <th scope="col">{t('users.col.lastLogin')}</th>
                  <th scope="col">{t('users.col.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((user) => (
                  <UserRow
                    key={user.id}
                    user={user}
                    isMe={user.email === me.email}
                    onChanged={outcome}
                    onDeactivate={setConfirming}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {items.length <= 1 && <p className="empty-state">{t('users.empty')}</p>}
        </section>
      )}
      {users.data && <InviteForm onInvited={() => users.reload()} />}
      {confirming && (
        <Modal title={t('users.deactivate.title', { email: confirming.email })} onClose={() => setConfirming(null)}>
          <p>{t('users.deactivate.body')}</p>
          <div className="form-actions">
            <button type="button" className="button danger" onClick={() => void deactivate(confirming)}>
              {t('users.deactivate.confirm')}
            </button>
            <button type="button" className="button" autoFocus onClick={() => setConfirming(null)}>
              {t('users.cancel')}
            </button>
          </div>
        </Modal>
      )}
    </>
  );
}
