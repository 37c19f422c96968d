/**
 * /envelopes/:id: where an envelope stands (recipients, timeline, documents and signatures) and what can be done with
 * it.
 */
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useResource } from '../../use-resource';
import { useUser } from '../../session';
import { canManageAccount } from '../developer/DeveloperFrame';
import { DocumentsCard } from './DocumentsCard';
import { LegalHoldCard } from './LegalHoldCard';
import { EnvelopeActions } from './EnvelopeActions';
import { RecipientsCard } from './RecipientsCard';
import { EnvelopeStatusBadge } from './StatusBadge';
import { Timeline } from './Timeline';
import type { AuditTrail, Envelope } from './types';
import './envelopes.css';

function Facts({ envelope }: { envelope: Envelope }) {
  const { t, formatDate } = useT();
  const facts: [string, string][] = [[t('envelopes.detail.created'), formatDate(envelope.created_at)]];
  if (envelope.created_by) facts.push([t('envelopes.detail.createdBy'), envelope.created_by.email]);
  if (envelope.sent_at) facts.push([t('envelopes.detail.sent'), formatDate(envelope.sent_at)]);
  if (envelope.completed_at) facts.push([t('envelopes.detail.completed'), formatDate(envelope.completed_at)]);
  if (envelope.expires_at && (envelope.status === 'sent' || envelope.status === 'expired')) {
    facts.push([t('envelopes.detail.expires'), formatDate(envelope.expires_at)]);
  }
  if (envelope.external_id) facts.push([t('envelopes.detail.externalId'), envelope.external_id]);
  if (envelope.status_reason) facts.push([t('envelopes.detail.reason'), envelope.status_reason]);
  if (envelope.pades_level) facts.push([t('envelopes.detail.pades'), envelope.pades_level]);
  if (envelope.purged_at) facts.push([t('retention.purged.title'), formatDate(envelope.purged_at)]);
  return (
    <dl className="env-facts">
      {facts.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function EnvelopeDetailPage({ params }: { params: Record<string, string> }) {
  const { t } = useT();
  const user = useUser();
  const id = params.id!;
  const envelope = useResource((signal) => api<Envelope>('GET', `/envelopes/${id}`, { signal }), [id]);
  const trail = useResource((signal) => api<AuditTrail>('GET', `/envelopes/${id}/audit-trail`, { signal }), [id]);
  const [message, setMessage] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const notice = useRef<HTMLParagraphElement>(null);
  const data = envelope.data;
  const title = data?.title;
  useEffect(() => {
    if (title === undefined) return;
    document.title = `${title} · ${t('console.title')}`;
    // A new page for screen readers and keyboards: start at its heading.
    heading.current?.focus();
  }, [title, t]);

  // After an action (void) its button may be gone: keyboard focus goes to what happened instead of the page's start.
  useEffect(() => {
    if (message) notice.current?.focus();
  }, [message]);

  const changed = (text: string) => {
    setMessage(text);
    envelope.reload();
    trail.reload();
  };

  if (!data) {
    return (
      <>
        <p>
          <Link to="/envelopes">{t('envelopes.back')}</Link>
        </p>
        {envelope.error ? (
          <ErrorNotice error={envelope.error} onRetry={envelope.reload} />
        ) : (
          <p className="muted">{t('console.loading')}</p>
        )}
      </>
    );
  }
  return (
    <>
      <p>
        <Link to="/envelopes">{t('envelopes.back')}</Link>
      </p>
      <div className="page-head env-detail-head">
        <h1 ref={heading} tabIndex={-1}>
          {data.title}
        </h1>
        <EnvelopeStatusBadge status={data.status} />
      </div>
      {message && (
        <p ref={notice} tabIndex={-1} className="notice notice-success" role="status">
          {message}
        </p>
      )}
      <ErrorNotice error={envelope.error} onRetry={envelope.reload} />
      <section className="card" aria-label={t('envelopes.detail.summary')}>
        <Facts envelope={data} />
        {/* Keyed by status: what was said about the last action does not outlive the state it was about. */}
        <EnvelopeActions key={data.status} envelope={data} onChanged={changed} />
      </section>
      <RecipientsCard envelope={data} />
      <DocumentsCard envelope={data} />
      {canManageAccount(user.role) && <LegalHoldCard envelope={data} onChanged={changed} />}
      <Timeline trail={trail} recipients={data.recipients} />
    </>
  );
}
