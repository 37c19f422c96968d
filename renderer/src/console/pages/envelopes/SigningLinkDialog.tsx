/**
 * A recipient's signing link for the sender to hand over (POST /signing-sessions, mode redirect): shown in a
 * read-only box with a Copy button. It expires in 15 minutes, so it is made only when asked for.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { Modal } from '../../../components/Modal';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import type { RecipientSummary, SigningSession } from './types';

export function SigningLinkDialog({
  envelopeId,
  recipient,
  onClose,
}: {
  envelopeId: string;
  recipient: RecipientSummary;
  onClose(): void;
}) {
  const { t, formatDate } = useT();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [session, setSession] = useState<SigningSession | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    api<SigningSession>('POST', `/envelopes/${envelopeId}/signing-sessions`, {
      json: { recipient_id: recipient.recipient_id, mode: 'redirect' },
    }).then(setSession, setError);
  }, [envelopeId, recipient.recipient_id]);

  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(session!.signing_url);
    } catch {
      // No clipboard permission (plain http, an old browser): the text is selected for Ctrl+C instead.
      document.execCommand('copy');
    }
    setCopied(true);
  };

  return (
    <Modal title={t('envelopes.link.title', { name: recipient.name })} onClose={onClose}>
      <ErrorNotice error={error} />
      {!session && !error && <p role="status">{t('console.loading')}</p>}
      {session && (
        <>
          <label htmlFor={`${id}-url`}>{t('envelopes.link.label')}</label>
          <div className="env-copy-row">
            <input
              ref={input}
              id={`${id}-url`}
              type="text"
              readOnly
              value={session.signing_url}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" className="button primary" onClick={() => void copy()}>
              {t('envelopes.link.copy')}
            </button>
          </div>
          <p className="muted small">{t('envelopes.link.expires', { at: formatDate(session.expires_at) })}</p>
          <p role="status" className="small">
            {copied ? t('envelopes.link.copied') : ''}
          </p>
        </>
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {t('envelopes.link.close')}
        </button>
      </div>
    </Modal>
  );
}
