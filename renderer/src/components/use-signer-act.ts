/**
 * The signer's act on the signing screen: consent, the page's own checks before acting, the act itself
 * (sign, approve, review; decline) and what to tell the signer when it fails.
 */
import { useState, type Dispatch, type SetStateAction } from 'react';
import { ApiError, isDeadLink, type SignBody, type SignerApi } from '../api';
import { valuesToSend } from '../fields';
import { useI18n } from '../i18n/i18n';
import type { ActResult, AdoptedSignature, FieldValue, SignerField, SignerView } from '../types';
import { focusField } from './use-signing-fields';

export interface SignerActInput {
  readonly view: SignerView;
  readonly api: SignerApi;
  readonly fields: readonly SignerField[];
  readonly values: Record<string, FieldValue>;
  /** Fields still to complete; the act waits for none. */
  readonly pending: readonly SignerField[];
  readonly signature: AdoptedSignature | null;
  readonly initials: AdoptedSignature | null;
  readonly hasInitials: boolean;
  readonly setFlagged: Dispatch<SetStateAction<ReadonlySet<string>>>;
  /** A signer without an adopted signature is asked for one first. */
  readonly askForSignature: () => void;
  readonly onFinished: (result: ActResult) => void;
  readonly onLinkFailure: (error: ApiError) => void;
}

export interface SignerAct {
  readonly consent: boolean;
  readonly accept: (value: boolean) => void;
  readonly busy: boolean;
  readonly alert: string | null;
  readonly declineError: string | null;
  /** The page's own checks before an act: every field done, consent given. Returns false (and says why) if not. */
  readonly ready: () => boolean;
  readonly submit: () => Promise<void>;
  readonly decline: (reason: string) => Promise<void>;
}

/** The body of a sign, approve or review act. */
function actBody(input: SignerActInput, action: 'sign' | 'approve' | 'review'): SignBody {
  const { fields, values, signature, initials, hasInitials } = input;
  if (action === 'sign') {
    return {
      action: 'sign',
      consent: true,
      fields: valuesToSend(fields, values),
      signature: {
        kind: signature!.kind,
        image_png: signature!.imagePng,
        ...(signature!.text ? { text: signature!.text } : {}),
      },
      ...(hasInitials && initials
        ? {
            initials: {
              kind: initials.kind === 'typed' ? 'typed' : 'drawn',
              image_png: initials.imagePng,
              ...(initials.text ? { text: initials.text } : {}),
            },
          }
        : {}),
    };
  }
  return action === 'approve'
    ? { action: 'approve', consent: true, fields: valuesToSend(fields, values) }
    : { action: 'review', consent: true };
}

export function useSignerAct(input: SignerActInput): SignerAct {
  const { view, api, pending, signature, setFlagged, onFinished, onLinkFailure } = input;
  const { t } = useI18n();
  const [consent, setConsent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [alert, setAlert] = useState<string | null>(null);
  const [declineError, setDeclineError] = useState<string | null>(null);
  const accept = (value: boolean) => {
    setConsent(value);
    if (value) setAlert(null);
  };

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
    if (view.action === 'sign' && !signature) return input.askForSignature(); // a signer without a Signature field still signs
    setBusy(true);
    try {
      onFinished(await api.act(actBody(input, view.action)));
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

  return { consent, accept, busy, alert, declineError, ready, submit, decline };
}
