/**
 * /operators/mail: the SMTP server of the account's mail (issue 28, point 2; docs/console.md). Admins only (the
 * frame refuses a sender in words). When the environment sets the server it is shown read-only.
 */
import { useCallback, useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from '../developer/DeveloperFrame';
import { legacy } from '../developer/model';
import type { MailSettings } from './mail-settings-model';
import { MailServerForm } from './MailServerForm';
import { TestMailCard } from './TestMailCard';

export function MailServerPage(_props: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const loaded = useResource((signal) => api<MailSettings>('GET', legacy('/mail/settings/'), { signal }), []);
  const [current, setCurrent] = useState<MailSettings | null>(null);
  const [done, setDone] = useState<'mail.saved' | 'mail.removed' | null>(null);
  const [dirty, setDirty] = useState(false);
  const onDirty = useCallback((value: boolean) => setDirty(value), []);
  const settings = current ?? loaded.data;

  return (
    <DeveloperFrame area="operators" title="mail.title" intro="mail.intro">
      <ErrorNotice error={loaded.error} onRetry={loaded.reload} />
      {loaded.loading && !settings && <p role="status">{t('console.loading')}</p>}
      {settings && (
        <>
          <p className="notice" data-source={settings.source}>
            {t(`mail.source.${settings.source}`)}
            {settings.updated_at && ` ${t('mail.updated', { date: formatDate(settings.updated_at) })}`}
          </p>
          <MailServerForm
            settings={settings}
            onDirty={onDirty}
            onChanged={(next, message) => {
              setCurrent(next);
              setDone(message);
            }}
          />
          <p role="status" className={done ? 'notice notice-success' : ''}>
            {done && !dirty ? t(done) : ''}
          </p>
          {settings.source !== 'none' && <TestMailCard unsaved={dirty} />}
        </>
      )}
    </DeveloperFrame>
  );
}
