/** An envelope's or a recipient's status as a coloured badge with its name in words (colour is never the only cue). */
import type { ConsoleStringKey } from '../../strings';
import { useT } from '../../i18n';

const ENVELOPE_TONES: Record<string, string> = {
  draft: '',
  sent: 'tone-info',
  completed: 'tone-success',
  declined: 'tone-danger',
  voided: 'tone-danger',
  expired: 'tone-warning',
};
const RECIPIENT_TONES: Record<string, string> = {
  created: '',
  waiting: '',
  active: 'tone-info',
  viewed: 'tone-info',
  signed: 'tone-success',
  approved: 'tone-success',
  reviewed: 'tone-success',
  completed: 'tone-success',
  none: '',
  declined: 'tone-danger',
  voided: 'tone-danger',
  expired: 'tone-warning',
};

export function EnvelopeStatusBadge({ status }: { status: string }) {
  const { t } = useT();
  const key = `envelopes.status.${status}` as ConsoleStringKey;
  return <span className={`badge ${ENVELOPE_TONES[status] ?? ''}`}>{status in ENVELOPE_TONES ? t(key) : status}</span>;
}

export function RecipientStatusBadge({ status }: { status: string }) {
  const { t } = useT();
  const key = `envelopes.recipientStatus.${status}` as ConsoleStringKey;
  return (
    <span className={`badge ${RECIPIENT_TONES[status] ?? ''}`}>{status in RECIPIENT_TONES ? t(key) : status}</span>
  );
}
