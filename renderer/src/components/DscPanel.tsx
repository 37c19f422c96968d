/**
 * USB DSC signing inside Mohar Desktop: pick a token certificate, accept, and sign. The page fetches the
 * prepared PDF (with this signer's values), the desktop signs it with the token after asking for the PIN in its
 * own window, and the page uploads the result. Desktop failures come back coded and are shown as such.
 */
import { useEffect, useMemo, useState } from 'react';
import type { TokenInfo } from '../../../common/desktop-bridge';
import { isDeadLink, type ApiError, type SignerApi } from '../api';
import { base64ToBytes, bytesToBase64 } from '../base64';
import { desktopBridge, desktopErrorMessage } from '../desktop';
import { dscRefusalMessage } from '../dsc-refusal';
import { FIELD } from '../fields';
import { useI18n } from '../i18n/i18n';
import type { ActResult, FieldValue, SignerView } from '../types';
import { ConsentCheckbox } from './ConsentCheckbox';
import { DesktopBatchPanel } from './DesktopBatchPanel';
import { DscNoBridge } from './DscNoBridge';
import { TokenPicker, type Choice } from './TokenPicker';

interface Props {
  view: SignerView;
  api: SignerApi;
  ready: () => boolean;
  consent: boolean;
  onConsent: (value: boolean) => void;
  fieldValues: () => Record<string, FieldValue>;
  onFinished: (result: ActResult) => void;
  onDecline: () => void;
  onLinkFailure: (error: ApiError) => void;
  alert: string | null;
}

type Phase = 'idle' | 'preparing' | 'signing' | 'uploading';

export function DscPanel({
  view,
  api,
  ready,
  consent,
  onConsent,
  fieldValues,
  onFinished,
  onDecline,
  onLinkFailure,
  alert,
}: Props) {
  const { t } = useI18n();
  const bridge = useMemo(desktopBridge, []);
  const [tokens, setTokens] = useState<TokenInfo[]>([]);
  const [selected, setSelected] = useState<Choice | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [error, setError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<unknown>(null);

  useEffect(() => {
    if (!bridge) return;
    let live = true;
    void bridge.listTokens().then((result) => {
      if (!live) return;
      if (result.ok) setTokens(result.value);
      else setError(desktopErrorMessage(result.error, t));
    });
    const stop = bridge.watchTokens((list) => live && setTokens(list));
    return () => {
      live = false;
      stop();
    };
    // Not re-run when the language (t) changes: the token list does not need reloading for it.
  }, [bridge]);

  // One usable certificate: picked already. A picked certificate whose token went away: unpicked.
  useEffect(() => {
    const usable = tokens.flatMap((tk) =>
      tk.pinLocked
        ? []
        : tk.certificates.filter((c) => c.usableForSigning).map((c) => ({ slotId: tk.slotId, certificateId: c.id })),
    );
    setSelected((current) =>
      current && usable.some((u) => u.slotId === current.slotId && u.certificateId === current.certificateId)
        ? current
        : usable.length === 1
          ? usable[0]!
          : null,
    );
  }, [tokens]);

  if (!bridge) return <DscNoBridge onDecline={onDecline} />;

  const target =
    view.documents.find((d) =>
      view.fields.some((f) => f.document_id === d.document_id && f.field_type === FIELD.SIGNATURE),
    ) ?? view.documents[0]!;

  const sign = async () => {
    setError(null);
    setRefusal(null);
    if (!ready()) return;
    if (!selected) return setError(t('dsc.pick'));
    try {
      setPhase('preparing');
      const prepared = await api.prepared(target.document_id, fieldValues());
      setPhase('signing');
      const result = await bridge.signPrepared({
        pdfBase64: bytesToBase64(prepared.bytes),
        fieldName: prepared.fieldName,
        slotId: selected.slotId,
        certificateId: selected.certificateId,
        documentName: target.filename,
      });
      if (!result.ok) {
        setError(desktopErrorMessage(result.error, t));
        return;
      }
      setPhase('uploading');
      onFinished(await api.uploadSigned(target.document_id, base64ToBytes(result.value.pdfBase64)));
    } catch (failure) {
      if (isDeadLink(failure)) onLinkFailure(failure);
      // A refusal is kept as such and worded at render time, so it follows a change of language.
      if (dscRefusalMessage(failure, view.recipient.name, t) !== null) setRefusal(failure);
      else setError(t('act.failed', { message: failure instanceof Error ? failure.message : String(failure) }));
    } finally {
      setPhase('idle');
    }
  };

  const busy = phase !== 'idle';
  const progress =
    phase === 'preparing'
      ? t('dsc.preparing')
      : phase === 'signing'
        ? t('dsc.signing')
        : phase === 'uploading'
          ? t('dsc.uploading')
          : '';
  return (
    <footer className="action-bar dsc-panel">
      <h2>{t('dsc.title')}</h2>
      <p className="muted">{t('dsc.intro')}</p>
      <TokenPicker tokens={tokens} selected={selected} onSelect={setSelected} />
      <ConsentCheckbox text="consent.dsc" checked={consent} onChange={onConsent} />
      <div role="alert" className="action-alert">
        {(refusal === null ? null : dscRefusalMessage(refusal, view.recipient.name, t)) ?? error ?? alert}
      </div>
      <div role="status" className="muted">
        {progress}
      </div>
      <div className="actions">
        <button type="button" className="button danger-outline" onClick={onDecline} disabled={busy}>
          {t('act.decline')}
        </button>
        <button type="button" className="button primary" onClick={() => void sign()} disabled={busy} aria-busy={busy}>
          {busy ? t('act.working') : t('dsc.sign')}
        </button>
      </div>
      <DesktopBatchPanel selected={selected} consent={consent} />
    </footer>
  );
}
