/**
 * The signing screen: the document with this recipient's fields, guidance to the next field, and the act
 * (sign, approve, review, decline). USB DSC signers sign through the desktop bridge instead (DscPanel).
 */
import { useCallback, useMemo, useRef, useState, type FocusEvent } from 'react';
import { ApiError, isDeadLink, type SignBody, type SignerApi } from '../api';
import { FIELD, initialsOf, initialValue, isComplete, needsInput, readingOrder, valuesToSend } from '../fields';
import { useI18n } from '../i18n/i18n';
import type { ActResult, AdoptedSignature, FieldValue, SignerView } from '../types';
import { AadhaarPanel, keptAadhaarValues } from './AadhaarPanel';
import { ActionBar } from './ActionBar';
import { DeclineDialog } from './DeclineDialog';
import { DocumentView } from './DocumentView';
import { DscPanel } from './DscPanel';
import { SandboxPanel } from './SandboxPanel';
import { Guidance } from './Guidance';
import { Header } from './Header';
import { SignatureDialog } from './SignatureDialog';
import { Toolbar } from './Toolbar';
import { useZoom } from './use-zoom';

interface Props {
  view: SignerView;
  api: SignerApi;
  onFinished: (result: ActResult) => void;
  /** The link died meanwhile (expired while filling, voided...): the page shows why instead. */
  onLinkFailure: (error: ApiError) => void;
}

/** Puts focus on a field (its first control for radio groups) and scrolls it to the middle of the screen. */
function focusField(fieldId: string): void {
  const element = document.getElementById(`field-${fieldId}`);
  if (!element) return;
  element.scrollIntoView({ block: 'center', inline: 'nearest' });
  const control = element.matches('input, select, button, textarea') ? element : element.querySelector<HTMLElement>('input, select, button');
  (control ?? element).focus({ preventScroll: true });
}

export function SigningScreen({ view, api, onFinished, onLinkFailure }: Props) {
  const { t } = useI18n();
  const dsc = view.recipient.signature_method === 'dsc';
  // Aadhaar eSign signers are signed by the eSign service provider: their Signature field is a placeholder too.
  const aadhaar = view.recipient.signature_method === 'aadhaar';
  // A reviewer only confirms: they hold no fields (the server refuses them at layout time), so none to fill.
  const fields = useMemo(() => (view.recipient.role === 'reviewer' ? [] : [...view.fields].sort(readingOrder(view.documents))), [view]);
  const toFill = useMemo(() => fields.filter((f) => needsInput(f) && !((dsc || aadhaar) && f.field_type === FIELD.SIGNATURE)), [fields, dsc]);
  const [values, setValues] = useState<Record<string, FieldValue>>(() => ({
    ...Object.fromEntries(fields.flatMap((f) => {
      const value = initialValue(f);
      return value === undefined ? [] : [[f.field_id, value]];
    })),
    // Back from the eSign service provider: what the signer typed before they went.
    ...(aadhaar ? keptAadhaarValues(view) : {}),
  }));
  const [signature, setSignature] = useState<AdoptedSignature | null>(null);
  // Drawn or typed once, like the signature, and shown in every Initials field of this signer.
  const [initials, setInitials] = useState<AdoptedSignature | null>(null);
  const hasInitials = fields.some((f) => f.field_type === FIELD.INITIAL);
  const [consent, setConsent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [alert, setAlert] = useState<string | null>(null);
  const [flagged, setFlagged] = useState<ReadonlySet<string>>(new Set());
  const accept = (value: boolean) => {
    setConsent(value);
    if (value) setAlert(null);
  };
  const [dialog, setDialog] = useState<'signature' | 'initials' | 'decline' | null>(null);
  const [declineError, setDeclineError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const pageCount = view.documents.reduce((n, d) => n + d.pages.length, 0);
  const zoom = useZoom(Math.max(...view.documents.flatMap((d) => d.pages.map((p) => p.width)), 1));

  const pending = toFill.filter((f) => !isComplete(f, values[f.field_id], signature, signature !== null, initials));

  const change = useCallback((fieldId: string, value: FieldValue) => {
    setValues((prev) => ({ ...prev, [fieldId]: value }));
    setFlagged((prev) => (prev.has(fieldId) ? new Set([...prev].filter((id) => id !== fieldId)) : prev));
  }, []);

  // The field the signer was last in: "Next field" continues from there (pressing the button moves focus to it).
  const lastField = useRef<string | null>(null);
  const trackField = (e: FocusEvent) => {
    const id = (e.target as HTMLElement).closest('[data-field-id]')?.getAttribute('data-field-id');
    if (id) lastField.current = id;
  };

  const nextField = () => {
    if (pending.length === 0) return document.getElementById('consent')?.focus();
    const from = fields.findIndex((f) => f.field_id === lastField.current);
    const after = pending.find((f) => fields.indexOf(f) > from) ?? pending[0]!;
    focusField(after.field_id);
  };

  /** The page's own checks before an act: every field done, consent given. Returns false (and says why) if not. */
  const ready = (): boolean => {
    if (pending.length > 0) {
      setFlagged(new Set(pending.map((f) => f.field_id)));
      setAlert(t('act.missing', { count: pending.length }));
      focusField(pending[0]!.field_id);
      return false;
    }
    if (!consent) {
      setAlert(t('act.needConsent'));
      document.getElementById('consent')?.focus();
      return false;
    }
    setAlert(null);
    return true;
  };

  /** What to tell the signer when an act fails: known reasons in their language, others with the server's words. */
  const failed = (error: unknown): string => {
    if (isDeadLink(error)) onLinkFailure(error);
    if (error instanceof ApiError) {
      if (error.code === 'invalid_field_values') {
        setFlagged(new Set(error.fieldIds()));
        return t('act.invalidFields');
      }
      if (error.code === 'consent_required') return t('act.needConsent');
      if (error.code === 'network_error') return t('link.network.body');
    }
    return t('act.failed', { message: error instanceof Error ? error.message : String(error) });
  };

  const submit = async () => {
    if (!ready() || (view.action !== 'sign' && view.action !== 'review' && view.action !== 'approve')) return;
    if (view.action === 'sign' && !signature) return setDialog('signature'); // a signer without a Signature field still signs
    setBusy(true);
    try {
      const body: SignBody = view.action === 'sign'
        ? {
          action: 'sign', consent: true, fields: valuesToSend(fields, values),
          signature: { kind: signature!.kind, image_png: signature!.imagePng, ...(signature!.text ? { text: signature!.text } : {}) },
          ...(hasInitials && initials ? { initials: { kind: initials.kind === 'typed' ? 'typed' : 'drawn', image_png: initials.imagePng, ...(initials.text ? { text: initials.text } : {}) } } : {}),
        }
        : view.action === 'approve'
          ? { action: 'approve', consent: true, fields: valuesToSend(fields, values) }
          : { action: 'review', consent: true };
      onFinished(await api.act(body));
    } catch (error) {
      setAlert(failed(error));
    } finally {
      setBusy(false);
    }
  };

  const decline = async (reason: string) => {
    setBusy(true);
    setDeclineError(null);
    try {
      onFinished(await api.act({ action: 'decline', decline_reason: reason }));
    } catch (error) {
      setDeclineError(failed(error));
    } finally {
      setBusy(false);
    }
  };

  const goToPage = (target: number) => {
    document.getElementById(`page-${target}`)?.scrollIntoView({ block: 'start' });
    setPage(target);
  };

  return (
    <div className="signing">
      <a className="skip-link" href="#document">{t('app.skip')}</a>
      <Header view={view} />
      <Toolbar zoom={zoom} page={page} pages={pageCount} onGoToPage={goToPage}>
        <Guidance left={pending.length} total={toFill.length} onNext={nextField} />
      </Toolbar>
      <main className="document-area" onFocus={trackField}>
        <DocumentView
          view={view}
          api={api}
          scale={zoom.scale}
          measured={zoom.measured}
          fields={fields}
          values={values}
          onChange={change}
          signature={signature}
          onOpenSignature={() => setDialog('signature')}
          initials={initials}
          onOpenInitials={() => setDialog('initials')}
          tokenSignature={dsc || aadhaar}
          flagged={flagged}
          onAvailableWidth={zoom.setAvailableWidth}
          onCurrentPage={setPage}
        />
      </main>
      {view.sandbox
        ? <SandboxPanel api={api} ready={ready} consent={consent} onConsent={accept} onFinished={onFinished} onDecline={() => setDialog('decline')} alert={alert} />
        : dsc
        ? <DscPanel view={view} api={api} ready={ready} consent={consent} onConsent={accept} fieldValues={() => valuesToSend(fields, values)} onFinished={onFinished} onDecline={() => setDialog('decline')} onLinkFailure={onLinkFailure} alert={alert} />
        : aadhaar
        ? <AadhaarPanel view={view} api={api} ready={ready} consent={consent} onConsent={accept} fieldValues={() => valuesToSend(fields, values)} onFinished={onFinished} onDecline={() => setDialog('decline')} alert={alert} />
        : <ActionBar action={view.action} consent={consent} onConsent={accept} busy={busy} alert={alert} onSubmit={() => void submit()} onDecline={() => setDialog('decline')} />}
      {dialog === 'signature' && (
        <SignatureDialog
          defaultText={view.recipient.name}
          onClose={() => setDialog(null)}
          onAdopt={(adopted) => {
            setSignature(adopted);
            setFlagged((prev) => new Set([...prev].filter((id) => !fields.some((f) => f.field_id === id && f.field_type === FIELD.SIGNATURE))));
            setDialog(null);
          }}
        />
      )}
      {dialog === 'initials' && (
        <SignatureDialog
          purpose="initials"
          defaultText={initialsOf(view.recipient.name)}
          onClose={() => setDialog(null)}
          onAdopt={(adopted) => {
            setInitials(adopted);
            setFlagged((prev) => new Set([...prev].filter((id) => !fields.some((f) => f.field_id === id && f.field_type === FIELD.INITIAL))));
            setDialog(null);
          }}
        />
      )}
      {dialog === 'decline' && <DeclineDialog busy={busy} error={declineError} onDecline={(reason) => void decline(reason)} onClose={() => setDialog(null)} />}
    </div>
  );
}
