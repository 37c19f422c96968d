/**
 * The account's webhook receiver: register or change its URL (a refusal says why, on the field), and its
 * signing secret: shown once after saving, revealed on demand, rotated with an overlap the old one keeps
 * signing for.
 */
import { useId, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice, RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { ConfirmDialog } from './ConfirmDialog';
import { legacy, type WebhookEndpoint, type WebhookSecret } from './model';
import { SecretBox } from './SecretBox';

interface Props {
  endpoint: WebhookEndpoint | null;
  /** The server's URL policy; undefined until it has answered (the hint waits rather than guess). */
  allowPrivate: boolean | undefined;
  onChanged: () => void;
}

export function WebhookEndpointCard({ endpoint, allowPrivate, onChanged }: Props) {
  const { t, formatDate } = useT();
  const urlId = useId();
  const [url, setUrl] = useState(endpoint?.webhook_url ?? '');
  const [urlError, setUrlError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<{ value: string; fresh: boolean } | null>(null);
  const [rotating, setRotating] = useState(false);
  const [overlap, setOverlap] = useState('24');
  const [rotatedUntil, setRotatedUntil] = useState<string | null>(null);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    setUrlError(null);
    void run(async () => {
      try {
        const saved = await api<WebhookEndpoint & { webhook_secret: string }>('POST', legacy('/webhook/save/'), {
          json: { webhook_url: url.trim() },
        });
        setSecret({ value: saved.webhook_secret, fresh: true });
        onChanged();
      } catch (e) {
        // The URL rules are the server's (https, public address…): its detail says which one failed.
        if (e instanceof ApiError && (e.code === 'invalid_webhook_url' || e.code === 'validation_failed')) {
          setUrlError(e);
          document.getElementById(urlId)?.focus();
          return;
        }
        throw e;
      }
    });
  };
  const reveal = () =>
    void run(async () => {
      const answer = await api<WebhookSecret>('GET', legacy('/webhook/secret/'));
      setSecret({ value: answer.webhook_secret, fresh: false });
    });
  const rotate = () => {
    setRotating(false);
    void run(async () => {
      const hours = Number.parseInt(overlap, 10);
      const answer = await api<WebhookSecret>('POST', legacy('/webhook/secret/rotate/'), {
        json: Number.isFinite(hours) ? { overlap_hours: hours } : {},
      });
      setSecret({ value: answer.webhook_secret, fresh: true });
      setRotatedUntil(answer.previous_secret_expires_at);
      onChanged();
    });
  };
  const overlapUntil = rotatedUntil ?? endpoint?.previous_secret_expires_at ?? null;

  return (
    <section className="card" aria-labelledby="webhook-endpoint">
      <h2 id="webhook-endpoint">{t('developer.webhooks.endpoint')}</h2>
      {endpoint ? (
        <p>
          <span className={`badge ${endpoint.status === 'active' ? 'tone-success' : 'tone-danger'}`}>
            {t(endpoint.status === 'active' ? 'developer.webhooks.active' : 'developer.webhooks.disabled')}
          </span>{' '}
          <code className="break">{endpoint.webhook_url}</code>
        </p>
      ) : (
        <div className="notice">
          <p>{t('developer.webhooks.none')}</p>
        </div>
      )}
      {endpoint?.status === 'disabled' && (
        <div className="notice notice-error">
          <p>
            {t('developer.webhooks.disabledWhy', {
              reason: endpoint.disabled_reason ?? '',
              at: formatDate(endpoint.disabled_at),
            })}
          </p>
        </div>
      )}
      <form onSubmit={save} noValidate>
        <div className="form-field">
          <label htmlFor={urlId}>{t('developer.webhooks.url')}</label>
          <input
            id={urlId}
            type="url"
            inputMode="url"
            value={url}
            placeholder="https://example.com/mohar/webhook"
            required
            aria-invalid={urlError ? true : undefined}
            aria-describedby={`${urlId}-hint ${urlId}-error`}
            onChange={(e) => setUrl(e.target.value)}
          />
          <span id={`${urlId}-hint`} className="hint">
            {allowPrivate === undefined
              ? ''
              : t(allowPrivate ? 'developer.webhooks.urlRulesPrivate' : 'developer.webhooks.urlRules')}
          </span>
          <span id={`${urlId}-error`} className="field-error" role={urlError ? 'alert' : undefined}>
            {urlError ? <RefusalLines error={urlError} /> : ''}
          </span>
        </div>
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={busy || url.trim() === ''}>
            {t(endpoint ? 'developer.webhooks.change' : 'developer.webhooks.register')}
          </button>
        </div>
      </form>
      {endpoint && (
        <>
          <h3>{t('developer.webhooks.secret')}</h3>
          <p className="muted">{t('developer.webhooks.secretHint')}</p>
          {overlapUntil && (
            <p className="notice" role="status">
              {t('developer.webhooks.overlap', { until: formatDate(overlapUntil) })}
            </p>
          )}
          {secret && (
            <SecretBox
              label={t('developer.webhooks.secretLabel')}
              value={secret.value}
              focus
              {...(secret.fresh ? { warning: t('developer.webhooks.secretNew') } : {})}
            />
          )}
          <div className="form-actions">
            {!secret && (
              <button type="button" className="button" disabled={busy} onClick={reveal}>
                {t('developer.webhooks.reveal')}
              </button>
            )}
            {secret && (
              <button type="button" className="button" onClick={() => setSecret(null)}>
                {t('developer.webhooks.hide')}
              </button>
            )}
            <button type="button" className="button danger" disabled={busy} onClick={() => setRotating(true)}>
              {t('developer.webhooks.rotate')}
            </button>
          </div>
        </>
      )}
      {!endpoint && secret && (
        <SecretBox
          label={t('developer.webhooks.secretLabel')}
          value={secret.value}
          warning={t('developer.webhooks.secretNew')}
          focus
        />
      )}
      <ErrorNotice error={error} />
      {rotating && (
        <ConfirmDialog
          title={t('developer.webhooks.rotateTitle')}
          body={t('developer.webhooks.rotateBody', { hours: overlap })}
          confirm={t('developer.webhooks.rotateConfirm')}
          onConfirm={rotate}
          onCancel={() => setRotating(false)}
        >
          <div className="form-field">
            <label htmlFor={`${urlId}-overlap`}>{t('developer.webhooks.overlapHours')}</label>
            <input
              id={`${urlId}-overlap`}
              type="number"
              min={0}
              max={720}
              value={overlap}
              onChange={(e) => setOverlap(e.target.value)}
            />
          </div>
        </ConfirmDialog>
      )}
    </section>
  );
}
