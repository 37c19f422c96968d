/** A failed load or action, in words (components/refusal.ts): the sentence, the server's detail beneath it. */
import { useT } from '../i18n';
import { describeRefusal } from './refusal';

/** The words and, as a secondary line, the server's detail; fits inside a <p> or a field's error line. */
export function RefusalLines({ error }: { error: unknown }) {
  const { t, language } = useT();
  const { words, detail } = describeRefusal(error, language, t('console.error.network'));
  return (
    <>
      {words}
      {detail && (
        <span className="refusal-detail" lang="en">
          {detail}
        </span>
      )}
    </>
  );
}

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useT();
  if (!error) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>
        <RefusalLines error={error} />
      </p>
      {onRetry && (
        <button type="button" className="button small" onClick={onRetry}>
          {t('console.error.retry')}
        </button>
      )}
    </div>
  );
}
