/** /users/audit-log: who did what in the account, newest first, older pages on request. */
import { useState } from 'react';
import { ACCOUNT_AUDIT_ACTIONS, type AccountAuditAction } from '../../../../../common/audit-actions';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import type { ConsoleStringKey } from '../../strings';
import { useUser } from '../../session';
import { useResource } from '../../use-resource';
import type { AuditItem, AuditPage } from './model';
import { LEGACY_BASE } from '../../api';
import { UsersRefused } from './UsersRefused';
import './users.css';

const PAGE = 50;

const KNOWN_ACTIONS: ReadonlySet<string> = new Set(ACCOUNT_AUDIT_ACTIONS);
const isKnownAction = (action: string): action is AccountAuditAction => KNOWN_ACTIONS.has(action);

/**
 * The words for an action (null: an action newer than this console, shown as written). The typed key does not
 * compile while an action of the shared list has no words in the catalogue.
 */
function actionKey(action: string): ConsoleStringKey | null {
  if (!isKnownAction(action)) return null;
  const key: `audit.action.${AccountAuditAction}` = `audit.action.${action}`;
  return key;
}

/** A sender is refused before any call (the server would answer 403 insufficient_role). */
export function AuditLogPage() {
  const me = useUser();
  return me.role === 'sender' ? <UsersRefused titleKey="audit.title" /> : <AuditLog />;
}

function AuditLog() {
  const { t, formatDate } = useT();
  const first = useResource(
    (signal) => api<AuditPage>('GET', `${LEGACY_BASE}/audit-log/?limit=${PAGE}`, { signal }),
    [],
  );
  const [older, setOlder] = useState<AuditItem[]>([]);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [moreError, setMoreError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const cursor = next === undefined ? (first.data?.next_before ?? null) : next;
  const loadMore = async () => {
    if (!cursor) return;
    setBusy(true);
    setMoreError(null);
    try {
      const page = await api<AuditPage>(
        'GET',
        `${LEGACY_BASE}/audit-log/?limit=${PAGE}&before=${encodeURIComponent(cursor)}`,
      );
      setOlder((items) => [...items, ...page.items]);
      setNext(page.next_before);
    } catch (failure) {
      setMoreError(failure);
    } finally {
      setBusy(false);
    }
  };

  const items = [...(first.data?.items ?? []), ...older];
  return (
    <>
      <div className="page-head">
        <h1>{t('audit.title')}</h1>
        <Link to="/users" className="button">
          {t('audit.back')}
        </Link>
      </div>
      <p className="muted">{t('audit.intro')}</p>
      <ErrorNotice error={first.error} onRetry={first.reload} />
      {first.data && (
        <section className="card">
          {items.length === 0 ? (
            <p className="empty-state">{t('audit.empty')}</p>
          ) : (
            <table className="data audit-table">
              <thead>
                <tr>
                  <th scope="col">{t('audit.col.when')}</th>
                  <th scope="col">{t('audit.col.who')}</th>
                  <th scope="col">{t('audit.col.action')}</th>
                  <th scope="col">{t('audit.col.target')}</th>
                  <th scope="col" className="hide-narrow">
                    {t('audit.col.ip')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => {
                  const key = actionKey(item.action);
                  return (
                    <tr key={item.id}>
                      <td>{formatDate(item.created_at)}</td>
                      <td>{item.actor_email ?? t('audit.someone')}</td>
                      <td>{key ? t(key) : item.action}</td>
                      <td>{item.target ?? '—'}</td>
                      <td className="hide-narrow">{item.ip ?? '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          <ErrorNotice error={moreError} />
          {cursor && (
            <div className="form-actions">
              <button type="button" className="button" disabled={busy} onClick={() => void loadMore()}>
                {t('audit.more')}
              </button>
            </div>
          )}
        </section>
      )}
    </>
  );
}
