/**
 * A recipient's signing link for the sender to hand over (POST /signing-sessions, mode redirect): shown in a
 * read-only box with a Copy button. It expires in 15 minutes, so it is made only when asked for.
 */
import { useEffect, useState } from 'react';
import { Modal } from '../../../shared/Modal';
import { api } from '../../api';
import { CopyField } from '../../components/CopyField';
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
  const [session, setSession] = useState<SigningSession | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    api<SigningSession>('POST', `/envelopes/${envelopeId}/signing-sessions`, {
      json: { recipient_id: recipient.recipient_id, mode: 'redirect' },
    }).then(setSession, setError);
  }, [envelopeId, recipient.recipient_id]);

  return (
    <Modal title={t('envelopes.link.title', { name: recipient.name })} onClose={onClose}>
      <ErrorNotice error={error} />
      {!session && !error && <p role="status">{t('console.loading')}</p>}
      {session && (
        <>
          <CopyField label={t('envelopes.link.label')} value={session.signing_url} />
          <p className="muted small">{t('envelopes.link.expires', { at: formatDate(session.expires_at) })}</p>
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
