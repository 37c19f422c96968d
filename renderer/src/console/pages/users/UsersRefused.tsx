/**
 * What a sender sees on /users and /users/audit-log: the refusal in words, before any call, and the way back
 * (the server keeps users and the audit log to admins, docs/users.md; the menu has no entry for a sender).
 */
import type { ConsoleStringKey } from '../../strings';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useUser } from '../../session';
import { roleKey } from './model';

export function UsersRefused({ titleKey }: { titleKey: ConsoleStringKey }) {
  const { t } = useT();
  const user = useUser();
  return (
    <>
      <div className="page-head">
        <h1>{t(titleKey)}</h1>
      </div>
      <div className="notice notice-error" role="alert">
        <p>{t('users.forbidden', { role: t(roleKey(user.role)) })}</p>
      </div>
      <Link to="/envelopes" className="button">
        {t('console.notFound.home')}
      </Link>
    </>
  );
}
