/**
 * /developer: the account's API keys. A key is shown in full once, when generated; afterwards only its prefix
 * and when it was last used. Rotating asks first: the old key stops working at once.
 */
import { useState } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { ConfirmDialog } from './ConfirmDialog';
import { DeveloperFrame } from './DeveloperFrame';
import { legacy, type GeneratedKey, type KeyList, type KeyMetadata, type KeyMode } from './model';
import { SecretBox } from './SecretBox';

const MODES: readonly KeyMode[] = ['live', 'test'];

function KeyCard({
  mode,
  current,
  onGenerated,
}: {
  mode: KeyMode;
  current: KeyMetadata | undefined;
  onGenerated: () => void;
}) {
  const { t, formatDate } = useT();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [revealed, setRevealed] = useState<GeneratedKey | null>(null);
  const generate = async () => {
    setConfirming(false);
    setBusy(true);
    setError(null);
    try {
      setRevealed(await api<GeneratedKey>('POST', legacy('/apikey/generate/'), { json: { mode } }));
      onGenerated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const notTestMode = error instanceof ApiError && error.code === 'test_mode_not_enabled';
  return (
    <section className="card" aria-labelledby={`key-${mode}`}>
      <h2 id={`key-${mode}`}>{t(mode === 'live' ? 'developer.keys.live' : 'developer.keys.test')}</h2>
      <p className="muted">{t(mode === 'live' ? 'developer.keys.liveHint' : 'developer.keys.testHint')}</p>
      {current ? (
        <dl className="facts">
          <dt>{t('developer.keys.prefix')}</dt>
          <dd>
            <code>{current.api_key_prefix}…</code>
          </dd>
          <dt>{t('developer.keys.created')}</dt>
          <dd>{formatDate(current.created_at)}</dd>
          <dt>{t('developer.keys.lastUsed')}</dt>
          <dd>{current.last_used_at ? formatDate(current.last_used_at) : t('developer.keys.never')}</dd>
        </dl>
      ) : (
        <p>{t('developer.keys.none')}</p>
      )}
      {revealed && (
        <SecretBox
          label={t('developer.keys.newKey', { mode })}
          value={revealed.api_key}
          warning={t('developer.keys.once')}
          focus
        />
      )}
      {notTestMode ? (
        <div className="notice" role="alert">
          <p>{t('developer.keys.notTestMode')}</p>
          <p className="small">{(error as ApiError).message}</p>
        </div>
      ) : (
        <ErrorNotice error={error} />
      )}
      <div className="form-actions">
        <button
          type="button"
          className={current ? 'button danger' : 'button primary'}
          disabled={busy}
          onClick={() => (current ? setConfirming(true) : void generate())}
        >
          {t(current ? 'developer.keys.rotate' : 'developer.keys.generate', { mode })}
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={t('developer.keys.confirmTitle', { mode })}
          body={t('developer.keys.confirmBody', { prefix: current?.api_key_prefix ?? '' })}
          confirm={t('developer.keys.confirm')}
          onConfirm={() => void generate()}
          onCancel={() => setConfirming(false)}
        />
      )}
    </section>
  );
}

export function ApiKeysPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const keys = useResource((signal) => api<KeyList>('GET', legacy('/apikey/get/'), { signal }), []);
  return (
    <DeveloperFrame area="developer" title="developer.keys.title" intro="developer.keys.intro">
      <ErrorNotice error={keys.error} onRetry={keys.reload} />
      {keys.loading && !keys.data && <p role="status">{t('console.loading')}</p>}
      {keys.data && (
        <div className="key-cards">
          {MODES.map((mode) => (
            <KeyCard
              key={mode}
              mode={mode}
              current={keys.data!.keys.find((k) => k.mode === mode)}
              onGenerated={keys.reload}
            />
          ))}
        </div>
      )}
    </DeveloperFrame>
  );
}
