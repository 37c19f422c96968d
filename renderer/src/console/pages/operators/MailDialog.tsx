/**
 * One outbox mail, opened (GET {legacy}/mail/outbox/{id}/): who it is for, its subject, its plain text shown as
 * text (React escapes it; the HTML body is never rendered, so nothing in a mail can run in the console) and each
 * link in it with a Copy button, for an office without a mail server to hand the link over itself.
 */
import { Modal } from '../../../shared/Modal';
import { api } from '../../api';
import { CopyField } from '../../components/CopyField';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { legacy } from '../developer/model';
import { mailTone, type OpenedMail, type OutboxMail } from './model';

function MailBody({ mail }: { mail: OpenedMail }) {
  const { t, formatDate } = useT();
  return (
    <>
      <dl className="mail-meta">
        <dt>{t('operators.outbox.to')}</dt>
        <dd>{mail.to_name ? `${mail.to_name} <${mail.to}>` : mail.to}</dd>
        <dt>{t('operators.mailView.subject')}</dt>
        <dd>{mail.subject}</dd>
        <dt>{t('operators.outbox.status')}</dt>
        <dd>
          <span className={`badge ${mailTone(mail.status)}`}>{t(`operators.mail.${mail.status}`)}</span>
          {mail.test && (
            <span className="badge" data-test-mail>
              {' '}
              {t('operators.mail.test')}
            </span>
          )}{' '}
          <span className="small muted">{formatDate(mail.created_at)}</span>
        </dd>
      </dl>
      {mail.status === 'kept' && mail.links.length > 0 && <p className="notice">{t('operators.mailView.keptNote')}</p>}
      <h3>{t('operators.mailView.links')}</h3>
      {mail.links.length === 0 && <p className="muted">{t('operators.mailView.noLinks')}</p>}
      {mail.links.map((link, i) => {
        const label = t('operators.mailView.link', { n: i + 1 });
        return <CopyField key={link} label={label} value={link} copyLabel={`${t('console.copy')}: ${label}`} />;
      })}
      <h3>{t('operators.mailView.text')}</h3>
      <pre className="mail-text" data-mail-text>
        {mail.text}
      </pre>
    </>
  );
}

export function MailDialog({ mail, onClose }: { mail: OutboxMail; onClose(): void }) {
  const { t } = useT();
  const opened = useResource(
    (signal) => api<OpenedMail>('GET', legacy(`/mail/outbox/${mail.id}/`), { signal }),
    [mail.id],
  );
  return (
    <Modal title={t('operators.mailView.title', { to: mail.to })} onClose={onClose} className="mail-dialog">
      <ErrorNotice error={opened.error} onRetry={opened.reload} />
      {opened.loading && !opened.data && <p role="status">{t('console.loading')}</p>}
      {opened.data && <MailBody mail={opened.data} />}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {t('operators.mailView.close')}
        </button>
      </div>
    </Modal>
  );
}
