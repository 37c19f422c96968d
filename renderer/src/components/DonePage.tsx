/** After the act: what happened, and the signed documents once everyone has signed. */
import type { SignerApi } from '../api';
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';
import type { ActResult, SignerView } from '../types';
import { StatusPage } from './StatusPage';

const TITLES: Record<string, StringKey> = {
  signed: 'done.signed',
  approved: 'done.approved',
  reviewed: 'done.reviewed',
  declined: 'done.declined',
};

interface Props {
  view: SignerView;
  result: ActResult;
  redirecting: boolean;
  api: SignerApi;
}

export function DonePage({ view, result, redirecting, api }: Props) {
  const { t } = useI18n();
  const declined = result.recipient_status === 'declined';
  const complete = result.envelope_status === 'completed';
  const title = t(TITLES[result.recipient_status] ?? 'done.signed');
  if (redirecting) return <StatusPage tone="success" title={title} body={t('done.redirecting')} busy />;
  return (
    <StatusPage
      tone={declined ? 'info' : 'success'}
      title={title}
      body={declined ? t('done.declinedBody') : complete ? t('done.complete') : t('done.pending')}
    >
      {complete && (
        <ul className="downloads">
          {view.documents.map((d) => (
            <li key={d.document_id}>
              <a className="button primary" href={api.downloadUrl(d.document_id)} download={d.filename}>
                {t('done.download', { filename: d.filename })}
              </a>
            </li>
          ))}
        </ul>
      )}
      <p className="muted">{t('done.thanks')}</p>
    </StatusPage>
  );
}
