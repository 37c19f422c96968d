/**
 * Who is on the envelope, in routing order, and where each one stands. Every recipient who can act now can be
 * handed a signing link; for the others the reason there is none is said instead of a dead button. A sequential
 * recipient gets no link before their turn (the server refuses it, recipient_not_active, and a 15-minute link
 * made early would be spent by then), so their row names whom they wait for.
 */
import { useState } from 'react';
import { useT } from '../../i18n';
import type { ConsoleStringKey } from '../../strings';
import { RecipientStatusBadge } from './StatusBadge';
import { SigningLinkDialog } from './SigningLinkDialog';
import { ACTIVE_RECIPIENT_STATUSES, type Envelope, type RecipientSummary } from './types';

const METHODS = new Set(['electronic', 'aadhaar', 'dsc', 'review']);
const ROLES = new Set(['signer', 'reviewer', 'approver', 'cc']);

const OPEN_RECIPIENT = new Set(['created', 'waiting', 'active', 'viewed']);
/** The roles that act (server/domain/workflow/routing.ts): a cc never holds anyone up. */
const ACTORS = new Set(['signer', 'reviewer', 'approver']);

/** A recipient who had not acted when the envelope ended is shown as such, not as still "their turn". */
function stillOpen(envelope: Envelope, recipient: RecipientSummary): boolean {
  return envelope.status === 'draft' || envelope.status === 'sent' || !OPEN_RECIPIENT.has(recipient.status);
}

/** The recipients earlier in the routing order who have still to act. */
function waitingFor(envelope: Envelope, recipient: RecipientSummary): string[] {
  return envelope.recipients
    .filter((r) => r.sequence < recipient.sequence && ACTORS.has(r.role) && OPEN_RECIPIENT.has(r.status))
    .map((r) => r.name);
}

function LinkCell({
  envelope,
  recipient,
  onOpen,
}: {
  envelope: Envelope;
  recipient: RecipientSummary;
  onOpen(): void;
}) {
  const { t, language } = useT();
  if (envelope.status === 'sent' && ACTIVE_RECIPIENT_STATUSES.includes(recipient.status)) {
    return (
      <button type="button" className="button small" onClick={onOpen}>
        {t('envelopes.link.open')}
      </button>
    );
  }
  const before = waitingFor(envelope, recipient);
  if (envelope.status === 'sent' && recipient.status === 'waiting' && before.length > 0) {
    const names = new Intl.ListFormat(language === 'hi' ? 'hi' : 'en-IN', { type: 'conjunction' }).format(before);
    return <span className="muted small">{t('envelopes.link.after', { names })}</span>;
  }
  const reason =
    envelope.status === 'draft'
      ? 'envelopes.link.notSent'
      : envelope.status !== 'sent'
        ? 'envelopes.link.closed'
        : recipient.status === 'waiting'
          ? 'envelopes.link.waiting'
          : 'envelopes.link.acted';
  return <span className="muted small">{t(reason)}</span>;
}

export function RecipientsCard({ envelope }: { envelope: Envelope }) {
  const { t } = useT();
  const [linkFor, setLinkFor] = useState<RecipientSummary | null>(null);
  return (
    <section className="card" aria-labelledby="recipients-title">
      <h2 id="recipients-title">{t('envelopes.recipients.title')}</h2>
      {envelope.recipients.length === 0 ? (
        <p className="muted">{t('envelopes.list.noRecipients')}</p>
      ) : (
        <div className="table-wrap">
          <table className="data env-recipients-table">
            <thead>
              <tr>
                <th scope="col" className="hide-narrow">
                  {t('envelopes.recipients.order')}
                </th>
                <th scope="col">{t('envelopes.recipients.person')}</th>
                <th scope="col" className="hide-narrow">
                  {t('envelopes.recipients.method')}
                </th>
                <th scope="col">{t('envelopes.list.status')}</th>
                <th scope="col">{t('envelopes.recipients.link')}</th>
              </tr>
            </thead>
            <tbody>
              {envelope.recipients.map((r) => (
                <tr key={r.recipient_id}>
                  <td className="hide-narrow">{r.sequence}</td>
                  <td>
                    <div>{r.name}</div>
                    <div className="muted small">{r.email}</div>
                  </td>
                  <td className="hide-narrow">
                    {ROLES.has(r.role) ? t(`envelopes.role.${r.role}` as ConsoleStringKey) : r.role}
                    {' · '}
                    {METHODS.has(r.signature_method)
                      ? t(`envelopes.method.${r.signature_method}` as ConsoleStringKey)
                      : r.signature_method}
                  </td>
                  <td>
                    <RecipientStatusBadge status={stillOpen(envelope, r) ? r.status : 'none'} />
                  </td>
                  <td>
                    <LinkCell envelope={envelope} recipient={r} onOpen={() => setLinkFor(r)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {linkFor && <SigningLinkDialog envelopeId={envelope.id} recipient={linkFor} onClose={() => setLinkFor(null)} />}
    </section>
  );
}
