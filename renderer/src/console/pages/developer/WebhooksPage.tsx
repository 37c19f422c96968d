/** /developer/webhooks: the receiver and its secret, a test event, and the delivery log. */
import { useState } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeliveryLog } from './DeliveryLog';
import { DeveloperFrame } from './DeveloperFrame';
import { legacy, type WebhookEndpoint, type WebhookPolicy } from './model';
import { WebhookEndpointCard } from './WebhookEndpointCard';

async function loadEndpoint(signal: AbortSignal): Promise<WebhookEndpoint | null> {
  try {
    return await api<WebhookEndpoint>('GET', legacy('/webhook/'), { signal });
  } catch (error) {
    // No webhook yet is a state of the page, not an error.
    if (error instanceof ApiError && error.code === 'webhook_not_registered') return null;
    throw error;
  }
}

export function WebhooksPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const endpoint = useResource(loadEndpoint, []);
  // The URL rules are the server's setting (MOHAR_WEBHOOK_ALLOW_PRIVATE): the hint says what this server accepts.
  const policy = useResource((signal) => api<WebhookPolicy>('GET', legacy('/webhook/policy/'), { signal }), []);
  const [generation, setGeneration] = useState(0);
  const [testState, setTestState] = useState<{ busy: boolean; sent: boolean; error: unknown }>({
    busy: false,
    sent: false,
    error: null,
  });
  const sendTest = async () => {
    setTestState({ busy: true, sent: false, error: null });
    try {
      await api('POST', legacy('/webhook/test/'));
      setTestState({ busy: false, sent: true, error: null });
      setGeneration((g) => g + 1);
    } catch (error) {
      setTestState({ busy: false, sent: false, error });
    }
  };
  return (
    <DeveloperFrame area="developer" title="developer.webhooks.title" intro="developer.webhooks.intro">
      <ErrorNotice error={endpoint.error} onRetry={endpoint.reload} />
      {endpoint.loading && endpoint.data === undefined && <p role="status">{t('console.loading')}</p>}
      {endpoint.data !== undefined && (
        <>
          {/* Not keyed by the endpoint: registering must not remount the card, or the one-time secret would vanish. */}
          <WebhookEndpointCard
            endpoint={endpoint.data}
            allowPrivate={policy.data?.allow_private}
            onChanged={endpoint.reload}
          />
          {endpoint.data && (
            <section className="card" aria-labelledby="webhook-test">
              <h2 id="webhook-test">{t('developer.webhooks.testTitle')}</h2>
              <p className="muted">{t('developer.webhooks.testHint')}</p>
              <div className="form-actions">
                <button
                  type="button"
                  className="button primary"
                  disabled={testState.busy || endpoint.data.status !== 'active'}
                  onClick={() => void sendTest()}
                >
                  {t('developer.webhooks.test')}
                </button>
              </div>
              <p role="status">{testState.sent ? t('developer.webhooks.testSent') : ''}</p>
              <ErrorNotice error={testState.error} />
            </section>
          )}
          {endpoint.data && <DeliveryLog generation={generation} />}
        </>
      )}
    </DeveloperFrame>
  );
}
