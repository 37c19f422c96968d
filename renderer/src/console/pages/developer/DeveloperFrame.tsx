/**
 * The frame of the developer portal and the operators' pages: their own tabs, and a clear refusal for a
 * sender (the server answers 403 insufficient_role to a sender anyway; this says it before any call).
 */
import type { ReactNode } from 'react';
import type { ConsoleStringKey } from '../../strings';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { useUser } from '../../session';
import './developer.css';

const DEVELOPER_TABS = [
  { to: '/developer', key: 'developer.tab.keys' },
  { to: '/developer/webhooks', key: 'developer.tab.webhooks' },
  { to: '/developer/embedding', key: 'developer.tab.embedding' },
  { to: '/developer/usage', key: 'developer.tab.usage' },
] as const;

const OPERATOR_TABS = [
  { to: '/operators', key: 'operators.tab.outbox' },
  { to: '/operators/jobs', key: 'operators.tab.jobs' },
  { to: '/operators/mail', key: 'operators.tab.mail' },
  { to: '/operators/retention', key: 'operators.tab.retention' },
] as const;

/** Roles that may manage the account (keys, webhooks, settings, operators' views). */
export const canManageAccount = (role: string): boolean => role === 'admin' || role === 'api_admin';

interface Props {
  area: 'developer' | 'operators';
  title: ConsoleStringKey;
  intro: ConsoleStringKey;
  children: ReactNode;
}

export function DeveloperFrame({ area, title, intro, children }: Props) {
  const { t } = useT();
  const { path } = useRouter();
  const user = useUser();
  const tabs = area === 'developer' ? DEVELOPER_TABS : OPERATOR_TABS;
  if (!canManageAccount(user.role)) {
    return (
      <>
        <div className="page-head">
          <h1>{t(title)}</h1>
        </div>
        <div className="notice notice-error" role="alert">
          <p>{t(area === 'developer' ? 'developer.forbidden' : 'operators.forbidden', { role: user.role })}</p>
        </div>
        <Link to="/envelopes" className="button">
          {t('console.notFound.home')}
        </Link>
      </>
    );
  }
  return (
    <>
      <div className="page-head">
        <h1>{t(title)}</h1>
      </div>
      <nav aria-label={t(area === 'developer' ? 'developer.tabs' : 'operators.tabs')}>
        <ul className="dev-tabs">
          {tabs.map((tab) => (
            <li key={tab.to}>
              <Link to={tab.to} aria-current={path === tab.to ? 'page' : undefined}>
                {t(tab.key)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <p className="muted dev-intro">{t(intro)}</p>
      {children}
    </>
  );
}
