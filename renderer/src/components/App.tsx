/**
 * The page's states: loading, a dead or early link (its own page each), the signing screen, and done. Embedded
 * pages tell their parent what happened (embed.ts).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, isDeadLink, signerApi, type SignerApi } from '../api';
import { notifyParent } from '../embed';
import { useI18n } from '../i18n/i18n';
import { safeRedirect, tokenFromLocation } from '../page-context';
import { MARKS, markOnce } from '../perf';
import type { ActResult, SignerView } from '../types';
import { DeadLinkPage } from './DeadLinkPage';
import { DonePage } from './DonePage';
import { SigningScreen } from './SigningScreen';
import { StatusPage } from './StatusPage';

type State =
  | { kind: 'loading' }
  | { kind: 'failed'; error: ApiError }
  | { kind: 'ready'; view: SignerView }
  | { kind: 'done'; view: SignerView; result: ActResult; redirecting: boolean };

export function App() {
  const { t } = useI18n();
  const token = useMemo(() => tokenFromLocation(), []);
  const api = useMemo<SignerApi | null>(() => (token ? signerApi(token) : null), [token]);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const aadhaarSigned = useMemo(() => new URLSearchParams(window.location.search).get('aadhaar') === 'signed', []);

  // A link that cannot be used any more (on opening, or when it expires while the signer fills the form):
  // its own page, and the parent of an embedded page hears about it once.
  const linkFailed = useCallback((error: ApiError) => {
    if (isDeadLink(error)) notifyParent('error', error.code);
    setState({ kind: 'failed', error });
  }, []);

  const load = useCallback(async () => {
    if (!api) return;
    setState({ kind: 'loading' });
    try {
      const view = await api.view();
      markOnce(MARKS.viewLoaded);
      setState({ kind: 'ready', view });
    } catch (error) {
      linkFailed(error instanceof ApiError ? error : new ApiError(0, 'network_error', String(error)));
    }
  }, [api, linkFailed]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    document.title =
      state.kind === 'ready' || state.kind === 'done' ? `${state.view.envelope.title} · Mohar` : t('app.title');
  }, [state, t]);

  const finished = useCallback((view: SignerView, result: ActResult) => {
    notifyParent(result.recipient_status === 'declined' ? 'declined' : 'signed');
    const redirect = safeRedirect(result.redirect_url);
    setState({ kind: 'done', view, result, redirecting: redirect !== null });
    if (redirect) window.location.assign(redirect);
  }, []);

  if (!api) return <StatusPage title={t('link.invalid.title')} body={t('link.invalid.body')} />;
  switch (state.kind) {
    case 'loading':
      return <StatusPage title={t('app.loading')} busy />;
    case 'failed':
      // Back from the eSign service provider, signed: the link is used now; say what happened.
      if (aadhaarSigned && (state.error.code === 'signing_link_used' || state.error.code === 'envelope_closed')) {
        return <StatusPage tone="success" title={t('aadhaar.done.title')} body={t('aadhaar.done.body')} />;
      }
      return <DeadLinkPage error={state.error} onRetry={load} />;
    case 'done':
      return <DonePage view={state.view} result={state.result} redirecting={state.redirecting} api={api} />;
    case 'ready': {
      const { view } = state;
      if (view.action === 'wait') return <StatusPage title={t('link.wait.title')} body={t('link.wait.body')} />;
      if (view.action === 'done' || view.action === 'closed') {
        return (
          <DeadLinkPage
            error={
              new ApiError(410, view.action === 'done' ? 'signing_link_used' : 'envelope_closed', '', {
                recipient_status: view.recipient.status,
                envelope_status: view.envelope.status,
              })
            }
            onRetry={load}
          />
        );
      }
      return (
        <SigningScreen
          view={view}
          api={api}
          onFinished={(result) => finished(view, result)}
          onLinkFailure={linkFailed}
        />
      );
    }
  }
}
