/** "3 of 5 fields left" and a button to the next field still to fill. */
import { useI18n } from '../i18n/i18n';

export function Guidance({ left, total, onNext }: { left: number; total: number; onNext: () => void }) {
  const { t } = useI18n();
  if (total === 0) return null;
  return (
    <div className="guidance">
      <span role="status" aria-live="polite" className={left === 0 ? 'guide-done' : 'guide-left'}>
        {left === 0 ? t('guide.done') : t('guide.left', { left, total })}
      </span>
      <button type="button" className="button primary small" onClick={onNext}>
        {t('guide.next')}
      </button>
    </div>
  );
}
