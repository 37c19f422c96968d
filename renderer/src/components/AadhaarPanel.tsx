/**
 * Aadhaar eSign signers: consent, then "Sign with Aadhaar". The server prepares the signature and answers with
 * its auto-post page, which takes the signer to the eSign service provider (ESP) for their Aadhaar number and
 * OTP; the ESP sends them back here with ?aadhaar=signed (the link is then used: App shows the done page) or
 * ?aadhaar=failed&reason=… (said here in words, with the button to try again). On a plain return (the ESP's
 * answer got lost: a closed tab, a dropped connection) the panel asks the server to recover it (EsignStatus).
 */
import { useEffect, useState } from 'react';
import { isEsignFailureReason, type EsignFailureReason } from '../../../common/esign-failures';
import type { SignerApi } from '../api';
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';
import type { ActResult, FieldValue, SignerView } from '../types';
import { ConsentCheckbox } from './ConsentCheckbox';

interface Props {
  view: SignerView;
  api: SignerApi;
  ready: () => boolean;
  consent: boolean;
  onConsent: (value: boolean) => void;
  fieldValues: () => Record<string, FieldValue>;
  onFinished: (result: ActResult) => void;
  onDecline: () => void;
  alert: string | null;
}

const KEPT = 'mohar:aadhaar:values:';

/**
 * The values the signer typed, kept in this tab while they are at the ESP (sessionStorage: this origin and tab
 * only), so a failed or cancelled attempt does not make them type everything again. Read once, then dropped.
 */
export function keptAadhaarValues(view: SignerView): Record<string, FieldValue> {
  const key = `${KEPT}${view.recipient.recipient_id}`;
  try {
    const kept = JSON.parse(window.sessionStorage.getItem(key) ?? '{}') as Record<string, unknown>;
    window.sessionStorage.removeItem(key);
    const mine = new Set(view.fields.map((f) => f.field_id));
    return Object.fromEntries(
      Object.entries(kept).filter(
        (e): e is [string, FieldValue] => mine.has(e[0]) && (typeof e[1] === 'string' || typeof e[1] === 'boolean'),
      ),
    );
  } catch {
    return {};
  }
}

/** The failure the ESP round trip came back with, from this page's address. */
function returnedFailure(): EsignFailureReason | null {
  const query = new URLSearchParams(window.location.search);
  if (query.get('aadhaar') !== 'failed') return null;
  return knownReason(query.get('reason') ?? 'esp_error');
}

/** A reason the page has words for; anything else (a newer server's) is said as the ESP's error. */
function knownReason(reason: string): EsignFailureReason {
  return isEsignFailureReason(reason) ? reason : 'esp_error';
}

/** The words of a reason: the compiler refuses a reason without its string in the catalogues. */
function failureWords(reason: EsignFailureReason): StringKey {
  return `aadhaar.failed.${reason}`;
}

export function AadhaarPanel({
  view,
  api,
  ready,
  consent,
  onConsent,
  fieldValues,
  onFinished,
  onDecline,
  alert,
}: Props) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<EsignFailureReason | null>(() => returnedFailure());
  const [error, setError] = useState<string | null>(null);

  // Back without an answer from the ESP: ask the server whether the last attempt was signed after all.
  useEffect(() => {
    if (returnedFailure() !== null) return;
    let cancelled = false;
    api
      .aadhaarStatus()
      .then((status) => {
        if (cancelled) return;
        if (status.state === 'signed') {
          onFinished({
            recipient_status: 'signed',
            envelope_status: status.envelope_status ?? view.envelope.status,
            redirect_url: view.session.return_url ?? view.envelope.redirect_url,
          });
        } else if (status.state === 'failed' && status.failure) setFailure(knownReason(status.failure.reason));
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [api, onFinished, view]);

  const sign = async () => {
    setError(null);
    if (!ready()) return;
    setBusy(true);
    try {
      const values = fieldValues();
      const started = await api.startAadhaar(values);
      try {
        window.sessionStorage.setItem(`${KEPT}${view.recipient.recipient_id}`, JSON.stringify(values));
      } catch {
        // Storage refused (private mode, quota): the signer types them again after a failure.
      }
      // This server's own page (the path: the page may be reached under another origin than MOHAR_BASE_URL).
      const autopost = new URL(started.autopost_url, window.location.href);
      window.location.assign(`${autopost.pathname}${autopost.search}`);
    } catch (problem) {
      setError(t('act.failed', { message: problem instanceof Error ? problem.message : String(problem) }));
      setBusy(false);
    }
  };

  return (
    <footer className="action-bar dsc-panel aadhaar-panel">
      <h2>{t('aadhaar.title')}</h2>
      <p className="muted">{t('aadhaar.intro')}</p>
      {failure && (
        <div className="aadhaar-failure" role="alert" data-reason={failure}>
          <strong>{t('aadhaar.failed.title')}</strong> {t(failureWords(failure))} {t('aadhaar.failed.unchanged')}
        </div>
      )}
      <ConsentCheckbox text="aadhaar.consent" checked={consent} onChange={onConsent} />
      <div role="alert" className="action-alert">
        {error ?? alert}
      </div>
      <div className="actions">
        <button type="button" className="button danger-outline" onClick={onDecline} disabled={busy}>
          {t('act.decline')}
        </button>
        <button type="button" className="button primary" onClick={() => void sign()} disabled={busy} aria-busy={busy}>
          {busy ? t('aadhaar.redirecting') : failure ? t('aadhaar.retry') : t('aadhaar.sign')}
        </button>
      </div>
    </footer>
  );
}
