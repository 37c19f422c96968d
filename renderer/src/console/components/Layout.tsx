/** The frame of every logged-in page: brand, main navigation, help menu, language, account and logout. */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { LANGUAGE_NAMES, type Language } from '../../i18n/strings';
import { API_BASE, LEGACY_BASE } from '../api';
import { useT } from '../i18n';
import { Link, useRouter } from '../router';
import { useSession, useUser } from '../session';

const NAV = [
  { to: '/envelopes', key: 'console.nav.envelopes' },
  { to: '/templates', key: 'console.nav.templates' },
  { to: '/bulk-sends', key: 'console.nav.bulk' },
] as const;

/** Account management: not for a sender (the server answers 403 insufficient_role to a sender there anyway). */
const ADMIN_NAV = [
  { to: '/developer', key: 'console.nav.developers' },
  { to: '/operators', key: 'console.nav.operators' },
] as const;
const MANAGES_ACCOUNT = new Set(['admin', 'api_admin']);
/** Users and the audit log: admins (and the api_admin of an account without an admin yet; the server decides). */
const USERS_NAV = [{ to: '/users', key: 'users.nav' }] as const;

function LanguagePicker() {
  const { language, setLanguage } = useT();
  const id = useId();
  return (
    <select
      id={id}
      aria-label="Language / भाषा"
      className="language-picker"
      value={language}
      onChange={(e) => setLanguage(e.target.value as Language)}
    >
      {(Object.keys(LANGUAGE_NAMES) as Language[]).map((code) => (
        <option key={code} value={code} lang={code}>
          {LANGUAGE_NAMES[code]}
        </option>
      ))}
    </select>
  );
}

function HelpMenu() {
  const { t } = useT();
  return (
    <details className="menu">
      <summary>{t('console.help')}</summary>
      <ul>
        <li>
          <a href={`${API_BASE}/docs/`} target="_blank" rel="noopener">
            {t('console.help.apiV1')}
          </a>
        </li>
        <li>
          <a href={`${LEGACY_BASE}/docs/`} target="_blank" rel="noopener">
            {t('console.help.legacy')}
          </a>
        </li>
      </ul>
    </details>
  );
}

/**
 * On a phone the navigation and tools fold behind a Menu button (console.css): a four-row header took a quarter of
 * the screen. On wider screens the button is hidden and the menu's box is transparent to the header's layout.
 */
export function Layout({ children }: { children: ReactNode }) {
  const { t } = useT();
  const { path } = useRouter();
  const user = useUser();
  const session = useSession();
  const menuId = useId();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  return (
    <div className="console">
      <a className="skip-link" href="#content">
        {t('console.skip')}
      </a>
      <header className="console-header">
        <Link to="/envelopes" className="brand">
          {t('console.title')}
        </Link>
        <button
          type="button"
          className="button small menu-toggle"
          aria-expanded={menuOpen}
          aria-controls={menuId}
          onClick={() => setMenuOpen((open) => !open)}
        >
          {t('console.menu')}
        </button>
        <div id={menuId} className="console-menu" data-open={menuOpen}>
          <nav aria-label={t('console.nav.label')}>
            <ul className="console-nav">
              {[...NAV, ...(MANAGES_ACCOUNT.has(user.role) ? [...ADMIN_NAV, ...USERS_NAV] : [])].map((item) => (
                <li key={item.to}>
                  <Link
                    to={item.to}
                    aria-current={path === item.to || path.startsWith(`${item.to}/`) ? 'page' : undefined}
                  >
                    {t(item.key)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="console-tools">
            <HelpMenu />
            <LanguagePicker />
            <details className="menu">
              <summary
                className="account"
                title={t('console.account', { email: user.email, account: user.account_name })}
              >
                {user.email}
              </summary>
              <ul>
                <li>
                  <Link
                    to="/account/password"
                    onClick={(e) => e.currentTarget.closest('details')?.removeAttribute('open')}
                  >
                    {t('password.change.link')}
                  </Link>
                </li>
              </ul>
            </details>
            <button type="button" className="button small" onClick={() => void session.logOut()}>
              {t('console.logout')}
            </button>
          </div>
        </div>
      </header>
      <main id="content" className="console-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
