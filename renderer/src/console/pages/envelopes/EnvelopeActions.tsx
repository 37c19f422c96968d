/**
 * What can be done with the envelope now: continue editing a draft, remind the recipients whose turn it is,
 * void. An action that does not apply is not offered; when none does, the reason is said.
 */
import { useState, type ReactNode } from 'react';
import { api } from '../../api';
import { RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { VoidDialog } from './VoidDialog';
import { ACTIVE_RECIPIENT_STATUSES, type Envelope, type RemindAnswer } from './types';

type Outcome = { tone: 'success' | 'info' | 'error'; text: ReactNode } | null;

export function EnvelopeActions({ envelope, onChanged }: { envelope: Envelope; onChanged(message: string): void }) {
  const { t, formatDate } = useT();
  const [voiding, setVoiding] = useState(false);
  const [reminding, setReminding] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const draft = envelope.status === 'draft';
  const inProgress = envelope.status === 'sent';
  const anyoneActive = envelope.recipients.some((r) => ACTIVE_RECIPIENT_STATUSES.includes(r.status));

  const remind = async () => {
    setReminding(true);
    setOutcome(null);
    try {
      const answer = await api<RemindAnswer>('POST', `/envelopes/${envelope.id}/remind`);
      const parts = [];
      if (answer.reminded.length > 0) {
        parts.push(t('envelopes.remind.sent', { emails: answer.reminded.map((r) => r.email).join(', ') }));
      }
      for (const skipped of answer.skipped) {
        parts.push(t('envelopes.remind.skipped', { email: skipped.email, at: formatDate(skipped.next_reminder_at) }));
      }
      setOutcome({
        tone: answer.reminded.length > 0 ? 'success' : 'info',
        text: parts.join(' ') || t('envelopes.remind.nobody'),
      });
      onChanged('');
    } catch (failure) {
      setOutcome({ tone: 'error', text: <RefusalLines error={failure} /> });
    } finally {
      setReminding(false);
    }
  };

  return (
    <div className="envelope-actions">
      <div className="form-actions">
        {draft && (
          <Link to={`/envelopes/${envelope.id}/edit`} className="button primary">
            {t('envelopes.action.edit')}
          </Link>
        )}
        {inProgress && (
          <button
            type="button"
            className="button"
            onClick={() => void remind()}
            disabled={reminding || !anyoneActive}
            aria-describedby={anyoneActive ? undefined : 'remind-why'}
          >
            {reminding ? t('envelopes.remind.busy') : t('envelopes.action.remind')}
          </button>
        )}
        {(draft || inProgress) && (
          <button type="button" className="button danger-outline" onClick={() => setVoiding(true)}>
            {t('envelopes.action.void')}
          </button>
        )}
      </div>
      {inProgress && !anyoneActive && (
        <p id="remind-why" className="muted small">
          {t('envelopes.remind.nobody')}
        </p>
      )}
      {!draft && !inProgress && <p className="muted small">{t('envelopes.action.finished')}</p>}
      {outcome && (
        <p
          className={outcome.tone === 'info' ? 'notice' : `notice notice-${outcome.tone}`}
          role={outcome.tone === 'error' ? 'alert' : 'status'}
        >
          {outcome.text}
        </p>
      )}
      {voiding && (
        <VoidDialog
          envelopeId={envelope.id}
          onClose={() => setVoiding(false)}
          onVoided={() => {
            setVoiding(false);
            onChanged(t('envelopes.void.done'));
          }}
        />
      )}
    </div>
  );
}
