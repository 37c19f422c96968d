/**
 * Inside Mohar Desktop: the other signing links handed to it (deep links), each document with its name and
 * SHA-256, signed all at once with the certificate picked above (one PIN, in the desktop's window), with a result
 * per document; and the token doctor's findings in the page's language.
 */
import { useEffect, useMemo, useState } from 'react';
import type { BatchItem, BatchReport } from '../../../common/desktop-batch';
import type { DoctorReport } from '../../../common/desktop-doctor';
import { desktopBatch, desktopErrorMessage, knownDesktopReason } from '../desktop';
import type { Translate } from '../i18n/i18n';
import { useI18n } from '../i18n/i18n';
import type { Choice } from './TokenPicker';

interface Props {
  selected: Choice | null;
  /** The signer accepted the DSC consent (required for the batch as for this document). */
  consent: boolean;
}

export function DesktopBatchPanel({ selected, consent }: Props) {
  const { t, language } = useI18n();
  const batch = useMemo(desktopBatch, []);
  const [items, setItems] = useState<BatchItem[]>([]);
  const [report, setReport] = useState<BatchReport | null>(null);
  const [doctor, setDoctor] = useState<DoctorReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = async () => {
    if (!batch) return;
    const result = await batch.list();
    if (result.ok) setItems(result.value);
    else setError(desktopErrorMessage(result.error, t));
  };
  useEffect(() => {
    void refresh();
    // Loaded once; the signer refreshes by hand (the links come from outside the page).
  }, [batch]);

  if (!batch) return null;
  const ready = items.filter((i) => i.state === 'ready');

  const signAll = async () => {
    setError(null);
    if (!selected) return setError(t('dsc.pick'));
    if (!consent) return setError(t('batch.consent'));
    setBusy(true);
    try {
      const result = await batch.sign(selected);
      if (!result.ok) return setError(desktopErrorMessage(result.error, t));
      setReport(result.value);
      setItems(result.value.items);
    } finally {
      setBusy(false);
    }
  };
  const runDoctor = async () => {
    setBusy(true);
    try {
      const result = await batch.doctor();
      if (result.ok) setDoctor(result.value);
      else setError(desktopErrorMessage(result.error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="desktop-batch" aria-labelledby="batch-title">
      <h3 id="batch-title">{t('batch.title')}</h3>
      {items.length === 0 ? <p className="muted">{t('batch.empty')}</p> : <p className="muted">{t('batch.intro')}</p>}
      <ul className="batch-items">
        {items.map((item) => (
          <li key={item.id} className={`batch-item ${item.state}`}>
            <strong>{item.documentName || item.envelopeTitle}</strong>{' '}
            <span className="batch-state">{t(`batch.state.${item.state}`)}</span>
            {item.documentSha256 && <code className="hash">{t('batch.sha256', { hash: item.documentSha256 })}</code>}
            {item.reason && <span className="batch-reason"> {itemReason(item, t)}</span>}
          </li>
        ))}
      </ul>
      <div role="alert" className="action-alert">
        {error}
      </div>
      {report && (
        <p role="status">
          {t('batch.summary', { signed: report.signed, failed: report.failed, skipped: report.skipped })}
          {report.stoppedBy ? ` ${desktopErrorMessage(report.stoppedBy, t)}` : ''}
        </p>
      )}
      <div className="actions">
        <button type="button" className="button" onClick={() => void refresh()} disabled={busy}>
          {t('batch.refresh')}
        </button>
        {ready.length > 0 && (
          <button
            type="button"
            className="button primary"
            onClick={() => void signAll()}
            // The DSC consent above covers these documents too: no batch before it is ticked.
            disabled={busy || !consent}
            title={consent ? undefined : t('batch.consent')}
          >
            {t('batch.signAll', { count: ready.length })}
          </button>
        )}
        <button type="button" className="button" onClick={() => void runDoctor()} disabled={busy}>
          {t('doctor.run')}
        </button>
      </div>
      {doctor && (
        <div className="doctor" aria-label={t('doctor.title')}>
          <h3>{t('doctor.title')}</h3>
          {doctor.worst === 'info' && <p>{t('doctor.ok')}</p>}
          <ul>
            {doctor.findings.map((f, index) => (
              <li key={`${f.code}-${index}`} className={`finding ${f.severity}`}>
                <strong>{t(`doctor.severity.${f.severity}`)}</strong> {f.subject}: {f.summary[language]}
                {f.severity !== 'info' && <p>{t('doctor.advice', { advice: f.advice[language] })}</p>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/**
 * A document's failure in the page's language when the code is one the page knows (a PIN or token problem);
 * otherwise the words as they came (a server's refusal, in the server's words).
 */
function itemReason(item: BatchItem, t: Translate): string {
  const reason = item.reason ?? '';
  if (item.reasonCode === null) return reason;
  return knownDesktopReason({ code: item.reasonCode, message: reason }, t) ?? reason;
}
