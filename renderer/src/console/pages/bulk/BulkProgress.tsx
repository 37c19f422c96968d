/** The progress of a batch: a bar of the rows finished out of all, and the counts behind it in words. */
import { useT } from '../../i18n';
import { doneRows, type BulkCounts } from './model';

export function BulkProgress({ counts, compact = false }: { counts: BulkCounts; compact?: boolean }) {
  const { t } = useT();
  const done = doneRows(counts);
  const label = t('bulk.progress.label', { done, total: counts.total });
  return (
    <div className={`bulk-progress${compact ? ' compact' : ''}`}>
      <progress className="progress" max={Math.max(counts.total, 1)} value={done} aria-label={label} />
      <p className="bulk-progress-text">
        <strong>{t('bulk.progress.done', { done, total: counts.total })}</strong>
        {!compact && (
          <span className="muted">
            {' '}
            ·{' '}
            {t('bulk.progress.counts', {
              created: counts.created,
              sent: counts.sent,
              failed: counts.failed,
              canceled: counts.canceled,
              pending: counts.pending,
            })}
          </span>
        )}
      </p>
    </div>
  );
}
