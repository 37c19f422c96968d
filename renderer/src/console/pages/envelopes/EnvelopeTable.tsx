/** The envelope rows: title (a link to the detail), status, who is on it and how far they are, created date. */
import { useT } from '../../i18n';
import { Link } from '../../router';
import { EnvelopeStatusBadge } from './StatusBadge';
import type { EnvelopeSummary, RecipientSummary } from './types';

const DONE = new Set(['signed', 'approved', 'reviewed', 'completed']);
const SHOWN_NAMES = 3;

function RecipientsSummary({ recipients, draft }: { recipients: RecipientSummary[]; draft: boolean }) {
  const { t } = useT();
  if (recipients.length === 0) return <span className="muted">{t('envelopes.list.noRecipients')}</span>;
  const done = recipients.filter((r) => DONE.has(r.status)).length;
  const names = recipients
    .slice(0, SHOWN_NAMES)
    .map((r) => r.name)
    .join(', ');
  const more = recipients.length - SHOWN_NAMES;
  return (
    <>
      <span>{more > 0 ? t('envelopes.list.namesMore', { names, count: more }) : names}</span>
      {!draft && (
        <span className="muted small env-recipients-progress">
          {t('envelopes.list.progress', { done, total: recipients.length })}
        </span>
      )}
    </>
  );
}

export function EnvelopeTable({ envelopes }: { envelopes: EnvelopeSummary[] }) {
  const { t, formatDate } = useT();
  return (
    <div className="table-wrap">
      <table className="data envelope-table">
        <caption className="visually-hidden">{t('envelopes.list.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('envelopes.list.title')}</th>
            <th scope="col">{t('envelopes.list.status')}</th>
            <th scope="col" className="hide-narrow">
              {t('envelopes.list.recipients')}
            </th>
            <th scope="col" className="hide-narrow">
              {t('envelopes.list.created')}
            </th>
          </tr>
        </thead>
        <tbody>
          {envelopes.map((envelope) => (
            <tr key={envelope.id}>
              <td>
                <Link to={`/envelopes/${envelope.id}`} className="envelope-title">
                  {envelope.title}
                </Link>
                {envelope.external_id && <span className="muted small env-external-id">{envelope.external_id}</span>}
                {/* At phone width the two hidden columns fold into one line here. */}
                <span className="muted small env-narrow-only">
                  {envelope.recipients.map((r) => r.name).join(', ')} · {formatDate(envelope.created_at)}
                </span>
              </td>
              <td>
                <EnvelopeStatusBadge status={envelope.status} />
              </td>
              <td className="hide-narrow env-recipients-cell">
                <RecipientsSummary recipients={envelope.recipients} draft={envelope.status === 'draft'} />
              </td>
              <td className="hide-narrow env-nowrap">{formatDate(envelope.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
