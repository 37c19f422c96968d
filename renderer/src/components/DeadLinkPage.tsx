/**
 * A link that cannot be used (now): expired, revoked (replaced), used, closed envelope, or the server cannot be
 * reached.
 */
import type { ApiError } from '../api';
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';
import { StatusPage } from './StatusPage';

const CLOSED: Record<string, [StringKey, StringKey]> = {
  completed: ['link.completed.title', 'link.completed.body'],
  voided: ['link.voided.title', 'link.voided.body'],
  declined: ['link.declined.title', 'link.declined.body'],
  expired: ['link.envelopeExpired.title', 'link.envelopeExpired.body'],
};

const USED: Record<string, StringKey> = {
  signed: 'link.used.signed',
  approved: 'link.used.approved',
  reviewed: 'link.used.reviewed',
  declined: 'link.used.declined',
};

export function DeadLinkPage({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  const { t } = useI18n();
  switch (error.code) {
    case 'signing_session_expired':
      return <StatusPage tone="warning" title={t('link.expired.title')} body={t('link.expired.body')} />;
    case 'signing_link_revoked':
      return <StatusPage tone="warning" title={t('link.revoked.title')} body={t('link.revoked.body')} />;
    case 'signing_link_used': {
      const status = String(error.problem.recipient_status ?? '');
      return <StatusPage tone="success" title={t('link.used.title')} body={t(USED[status] ?? 'link.used.other')} />;
    }
    case 'envelope_closed': {
      const [title, body] = CLOSED[String(error.problem.envelope_status ?? '')] ?? CLOSED.voided!;
      const voidReason = typeof error.problem.void_reason === 'string' ? error.problem.void_reason : null;
      return (
        <StatusPage
          tone={error.problem.envelope_status === 'completed' ? 'success' : 'warning'}
          title={t(title)}
          body={t(body)}
        >
          {voidReason && (
            <p className="void-reason">
              {t('link.voided.reason')} <q>{voidReason}</q>
            </p>
          )}
        </StatusPage>
      );
    }
    case 'validation_failed':
    case 'route_not_found':
      return <StatusPage tone="warning" title={t('link.invalid.title')} body={t('link.invalid.body')} />;
    default: {
      const network = error.code === 'network_error' || error.status >= 500;
      return (
        <StatusPage
          tone="warning"
          title={t(network ? 'link.network.title' : 'link.error.title')}
          body={network ? t('link.network.body') : error.message}
        >
          <button type="button" className="button primary" onClick={onRetry}>
            {t('link.retry')}
          </button>
        </StatusPage>
      );
    }
  }
}
