/**
 * The signing screen: the document with this recipient's fields, guidance to the next field, and the act
 * (sign, approve, review, decline). USB DSC signers sign through the desktop bridge instead (DscPanel).
 */
import { useState } from 'react';
import type { ApiError, SignerApi } from '../api';
import { FIELD, initialsOf, isComplete, valuesToSend } from '../fields';
import { useI18n } from '../i18n/i18n';
import type { ActResult, AdoptedSignature, SignerView } from '../types';
import { AadhaarPanel } from './AadhaarPanel';
import { ActionBar } from './ActionBar';
import { DeclineDialog } from './DeclineDialog';
import { DocumentView } from './DocumentView';
import { DscPanel } from './DscPanel';
import { SandboxPanel } from './SandboxPanel';
import { Guidance } from './Guidance';
import { Header } from './Header';
import { SignatureDialog } from './SignatureDialog';
import { Toolbar } from './Toolbar';
import { useSignerAct } from './use-signer-act';
import { useFieldValues, useNextField, useRecipientFields } from './use-signing-fields';
import { useZoom } from './use-zoom';

interface Props {
  view: SignerView;
  api: SignerApi;
  onFinished: (result: ActResult) => void;
  /** The link died meanwhile (expired while filling, voided...): the page shows why instead. */
  onLinkFailure: (error: ApiError) => void;
}

export function SigningScreen({ view, api, onFinished, onLinkFailure }: Props) {
  const { t } = useI18n();
  const { dsc, aadhaar, fields, toFill, hasInitials } = useRecipientFields(view);
  const { values, change, flagged, setFlagged, unflagType } = useFieldValues(view, fields, aadhaar);
  const [signature, setSignature] = useState<AdoptedSignature | null>(null);
  // Drawn or typed once, like the signature, and shown in every Initials field of this signer.
  const [initials, setInitials] = useState<AdoptedSignature | null>(null);
  const [dialog, setDialog] = useState<'signature' | 'initials' | 'decline' | null>(null);
  const [page, setPage] = useState(1);
  const pageCount = view.documents.reduce((n, d) => n + d.pages.length, 0);
  const zoom = useZoom(Math.max(...view.documents.flatMap((d) => d.pages.map((p) => p.width)), 1));

  const pending = toFill.filter((f) => !isComplete(f, values[f.field_id], signature, signature !== null, initials));
  const { trackField, nextField } = useNextField(fields, pending);
  const { consent, accept, busy, alert, declineError, ready, submit, decline } = useSignerAct({
    view,
    api,
    fields,
    values,
    pending,
    signature,
    initials,
    hasInitials,
    setFlagged,
    askForSignature: () => setDialog('signature'),
    onFinished,
    onLinkFailure,
  });

  const goToPage = (target: number) => {
    document.getElementById(`page-${target}`)?.scrollIntoView({ block: 'start' });
    setPage(target);
  };

  return (
    <div className="signing">
      <a className="skip-link" href="#document">
        {t('app.skip')}
      </a>
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
      {view.sandbox ? (
        <SandboxPanel
          api={api}
          ready={ready}
          consent={consent}
          onConsent={accept}
          onFinished={onFinished}
          onDecline={() => setDialog('decline')}
          alert={alert}
        />
      ) : dsc ? (
        <DscPanel
          view={view}
          api={api}
          ready={ready}
          consent={consent}
          onConsent={accept}
          fieldValues={() => valuesToSend(fields, values)}
          onFinished={onFinished}
          onDecline={() => setDialog('decline')}
          onLinkFailure={onLinkFailure}
          alert={alert}
        />
      ) : aadhaar ? (
        <AadhaarPanel
          view={view}
          api={api}
          ready={ready}
          consent={consent}
          onConsent={accept}
          fieldValues={() => valuesToSend(fields, values)}
          onFinished={onFinished}
          onDecline={() => setDialog('decline')}
          alert={alert}
        />
      ) : (
        <ActionBar
          action={view.action}
          consent={consent}
          onConsent={accept}
          busy={busy}
          alert={alert}
          onSubmit={() => void submit()}
          onDecline={() => setDialog('decline')}
        />
      )}
      {dialog === 'signature' && (
        <SignatureDialog
          defaultText={view.recipient.name}
          onClose={() => setDialog(null)}
          onAdopt={(adopted) => {
            setSignature(adopted);
            unflagType(FIELD.SIGNATURE);
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
            unflagType(FIELD.INITIAL);
            setDialog(null);
          }}
        />
      )}
      {dialog === 'decline' && (
        <DeclineDialog
          busy={busy}
          error={declineError}
          onDecline={(reason) => void decline(reason)}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}
