/** A failed load or action, in words: the server's own explanation when it gave one, and a way to try again. */
import { ApiError } from '../api';
import { useT } from '../i18n';

export function errorText(error: unknown, networkText: string): string {
  if (error instanceof ApiError) return error.status === 0 ? networkText : error.message;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useT();
  if (!error) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>{errorText(error, t('console.error.network'))}</p>
      {onRetry && (
        <button type="button" className="button small" onClick={onRetry}>
          {t('console.error.retry')}
        </button>
      )}
    </div>
  );
}
