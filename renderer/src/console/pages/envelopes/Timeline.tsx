/** The envelope's audit trail as a timeline, newest last, with the result of checking its hash chain. */
import { ENVELOPE_AUDIT_ACTIONS, type EnvelopeAuditAction } from '../../../../../common/audit-actions';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import type { ConsoleStringKey } from '../../strings';
import type { Resource } from '../../use-resource';
import type { AuditEvent, AuditTrail, RecipientSummary } from './types';

const KNOWN_ACTIONS: ReadonlySet<string> = new Set(ENVELOPE_AUDIT_ACTIONS);
const isKnownAction = (action: string): action is EnvelopeAuditAction => KNOWN_ACTIONS.has(action);

/** The words for an action: this does not compile while an action of the shared list has none in the catalogue. */
function eventKey(action: EnvelopeAuditAction): ConsoleStringKey {
  const key: `envelopes.event.${EnvelopeAuditAction}` = `envelopes.event.${action}`;
  return key;
}
/** Details worth a line of their own; the rest (hashes, ids) stays in the downloadable audit trail. */
const SHOWN_DETAILS = ['reason', 'method', 'signature_method', 'ip'] as const;

function EventLine({ event, recipients }: { event: AuditEvent; recipients: RecipientSummary[] }) {
  const { t, formatDate } = useT();
  // An action newer than this console is shown as written rather than hidden.
  const what = isKnownAction(event.action) ? t(eventKey(event.action)) : event.action;
  const recipient =
    event.actor_type === 'recipient' ? recipients.find((r) => r.recipient_id === event.actor_id) : undefined;
  const who = recipient
    ? `${recipient.name} <${recipient.email}>`
    : event.actor_type === 'system'
      ? t('envelopes.actor.system')
      : event.actor_type === 'recipient'
        ? t('envelopes.actor.recipient')
        : t('envelopes.actor.account');
  const details = SHOWN_DETAILS.filter((key) => typeof event.details[key] === 'string' && event.details[key] !== '');
  return (
    <li className="env-timeline-event">
      <time dateTime={event.at}>{formatDate(event.at)}</time>
      <div>
        <strong>{what}</strong> <span className="muted">· {who}</span>
        {details.map((key) => (
          <div key={key} className="small muted">
            {t(`envelopes.detail.${key}` as ConsoleStringKey)}: {String(event.details[key])}
          </div>
        ))}
      </div>
    </li>
  );
}

export function Timeline({ trail, recipients }: { trail: Resource<AuditTrail>; recipients: RecipientSummary[] }) {
  const { t } = useT();
  const data = trail.data;
  return (
    <section className="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">{t('envelopes.timeline.title')}</h2>
      <ErrorNotice error={trail.error} onRetry={trail.reload} />
      {!data && !trail.error && <p className="muted">{t('console.loading')}</p>}
      {data && (
        <>
          <p className={`notice ${data.chain.ok ? 'notice-success' : 'notice-error'} env-chain-check`} role="status">
            {data.chain.ok
              ? t('envelopes.timeline.chainOk', { count: data.chain.count })
              : `${t('envelopes.timeline.chainBroken')} ${data.chain.problem ?? ''}`.trim()}
          </p>
          <ol className="env-timeline">
            {data.events.map((event) => (
              <EventLine key={event.seq} event={event} recipients={recipients} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
