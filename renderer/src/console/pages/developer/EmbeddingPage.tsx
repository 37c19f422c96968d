/**
 * /developer/embedding: the origins (scheme://host[:port]) allowed to embed the signing page in an iframe
 * for embedded signing sessions. Checked here as typed, and by the server on save (its refusal is shown on
 * the origin it names: errors[].path /allowed_origins/N).
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from './DeveloperFrame';
import { legacy, type AccountSettings } from './model';

/** The server's rule (normalizeOrigin): an http(s) URL; only its origin is kept. */
function originOf(text: string): string | null {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

export function EmbeddingPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const inputId = useId();
  const settings = useResource((signal) => api<AccountSettings>('GET', legacy('/account/settings/'), { signal }), []);
  const [origins, setOrigins] = useState<string[]>([]);
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState<string | null>(null);
  const [rowErrors, setRowErrors] = useState<Record<number, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (settings.data) setOrigins(settings.data.allowed_origins);
  }, [settings.data]);

  const add = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const origin = originOf(draft);
    if (!origin) {
      setDraftError(t('developer.embedding.invalid', { value: draft.trim() }));
      return;
    }
    if (origins.includes(origin)) {
      setDraftError(t('developer.embedding.duplicate', { origin }));
      return;
    }
    setDraftError(null);
    setOrigins([...origins, origin]);
    setDraft('');
  };
  const remove = (index: number) => {
    setSaved(false);
    setRowErrors({});
    setOrigins(origins.filter((_, i) => i !== index));
  };
  const save = async () => {
    setBusy(true);
    setError(null);
    setRowErrors({});
    try {
      const answer = await api<AccountSettings>('PUT', legacy('/account/settings/'), {
        json: { allowed_origins: origins },
      });
      setOrigins(answer.allowed_origins);
      setSaved(true);
    } catch (e) {
      const listed =
        e instanceof ApiError ? (e.problem?.errors as { path?: string; message?: string }[] | undefined) : undefined;
      const byRow = Object.fromEntries(
        (listed ?? []).flatMap((item) => {
          const match = /^\/allowed_origins\/(\d+)/.exec(item.path ?? '');
          return match ? [[Number(match[1]), item.message ?? '']] : [];
        }),
      );
      if (Object.keys(byRow).length > 0) setRowErrors(byRow);
      else setError(e);
    } finally {
      setBusy(false);
    }
  };
  const dirty =
    settings.data !== undefined && JSON.stringify(settings.data.allowed_origins) !== JSON.stringify(origins);

  return (
    <DeveloperFrame area="developer" title="developer.embedding.title" intro="developer.embedding.intro">
      <ErrorNotice error={settings.error} onRetry={settings.reload} />
      {settings.loading && !settings.data && <p role="status">{t('console.loading')}</p>}
      {settings.data && (
        <section className="card" aria-labelledby="origins-title">
          <h2 id="origins-title">{t('developer.embedding.origins')}</h2>
          {origins.length === 0 ? (
            <p className="notice">{t('developer.embedding.empty')}</p>
          ) : (
            <ul className="origin-list">
              {origins.map((origin, index) => (
                <li key={origin}>
                  <code>{origin}</code>
                  <button
                    type="button"
                    className="button small"
                    aria-label={t('developer.embedding.removeOne', { origin })}
                    onClick={() => remove(index)}
                  >
                    {t('developer.embedding.remove')}
                  </button>
                  {rowErrors[index] && (
                    <span className="field-error" role="alert">
                      {rowErrors[index]}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
          <form onSubmit={add} noValidate className="origin-add">
            <div className="form-field">
              <label htmlFor={inputId}>{t('developer.embedding.add')}</label>
              <input
                id={inputId}
                value={draft}
                placeholder="https://portal.example.com"
                aria-invalid={draftError ? true : undefined}
                aria-describedby={`${inputId}-hint ${inputId}-error`}
                onChange={(e) => setDraft(e.target.value)}
              />
              <span id={`${inputId}-hint`} className="hint">
                {t('developer.embedding.rules')}
              </span>
              <span id={`${inputId}-error`} className="field-error" role={draftError ? 'alert' : undefined}>
                {draftError ?? ''}
              </span>
            </div>
            <div className="form-actions">
              <button type="submit" className="button" disabled={draft.trim() === ''}>
                {t('developer.embedding.addButton')}
              </button>
            </div>
          </form>
          <ErrorNotice error={error} />
          <div className="form-actions">
            <button type="button" className="button primary" disabled={busy || !dirty} onClick={() => void save()}>
              {t('developer.embedding.save')}
            </button>
          </div>
          <p role="status" className={saved ? 'notice notice-success' : ''}>
            {saved ? t('developer.embedding.saved') : dirty ? t('developer.embedding.unsaved') : ''}
          </p>
        </section>
      )}
    </DeveloperFrame>
  );
}
