/** The console: the login until a session exists, then the page the address names inside the frame. */
import { useEffect } from 'react';
import { Layout } from './components/Layout';
import { ErrorNotice } from './components/ErrorNotice';
import { useT } from './i18n';
import { LoginPage } from './pages/LoginPage';
import { SetPasswordPage } from './pages/users/SetPasswordPage';
import { Link, matchPath, useRouter } from './router';
import { ROUTES } from './routes';
import { useSession } from './session';

function NotFound() {
  const { t } = useT();
  return (
    <section className="empty-state">
      <h1>{t('console.notFound.title')}</h1>
      <p>{t('console.notFound.body')}</p>
      <Link to="/envelopes" className="button primary">
        {t('console.notFound.home')}
      </Link>
    </section>
  );
}

function CurrentPage() {
  const { path, navigate } = useRouter();
  useEffect(() => {
    if (path === '/') navigate('/envelopes', { replace: true });
  }, [path, navigate]);
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return <route.page key={path} params={params} />;
  }
  return path === '/' ? null : <NotFound />;
}

export function App() {
  const { t } = useT();
  const { state } = useSession();
  const { path } = useRouter();
  // The invite and reset links: public, whoever is (or is not) logged in in this browser.
  if (path === '/set-password') return <SetPasswordPage />;
  if (state.status === 'loading') {
    return (
      <p className="console-loading" role="status">
        {t('console.loading')}
      </p>
    );
  }
  if (state.status === 'anonymous') {
    return (
      <>
        {state.error !== undefined && <ErrorNotice error={state.error} />}
        <LoginPage ended={state.ended} />
      </>
    );
  }
  return (
    <Layout>
      <CurrentPage />
    </Layout>
  );
}
