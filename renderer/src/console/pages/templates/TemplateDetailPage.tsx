/**
 * /templates/:id: what a template holds (settings, roles, documents and their fields), its version history,
 * and what to do with it: use it, edit it, send it in bulk, archive or restore it (confirmed).
 */
import { useEffect, useRef, useState } from 'react';
import { Modal } from '../../../shared/Modal';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link } from '../../router';
import { useResource } from '../../use-resource';
import { fieldCount, roleName, type PortableTemplate } from './model';
import { VersionHistory } from './VersionHistory';
import './templates.css';

function ArchiveDialog({
  template,
  onDone,
  onClose,
}: {
  template: PortableTemplate;
  onDone(t: PortableTemplate): void;
  onClose(): void;
}) {
  const { t } = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const restoring = template.archived;
  const confirm = async () => {
    setBusy(true);
    try {
      onDone(
        restoring
          ? await api<PortableTemplate>('POST', `/templates/${template.template_id}/restore`)
          : await api<PortableTemplate>('DELETE', `/templates/${template.template_id}`),
      );
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t(restoring ? 'templates.restore.title' : 'templates.archive.title', { name: template.name })}
      onClose={onClose}
    >
      <p>{t(restoring ? 'templates.restore.body' : 'templates.archive.body')}</p>
      <ErrorNotice error={error} />
      <div className="form-actions">
        <button
          type="button"
          className={`button ${restoring ? 'primary' : 'danger'}`}
          disabled={busy}
          onClick={() => void confirm()}
        >
          {t(restoring ? 'templates.restore.confirm' : 'templates.archive.confirm')}
        </button>
        <button type="button" className="button" onClick={onClose}>
          {t('templates.cancel')}
        </button>
      </div>
    </Modal>
  );
}

export function TemplateDetailPage({ params }: { params: Record<string, string> }) {
  const { t, formatDate } = useT();
  const id = params.id!;
  const loaded = useResource((signal) => api<PortableTemplate>('GET', `/templates/${id}`, { signal }), [id]);
  const [changed, setChanged] = useState<PortableTemplate | null>(null);
  const [dialog, setDialog] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const template = changed ?? loaded.data;
  useEffect(() => heading.current?.focus(), [template?.template_id]);

  if (!template) {
    return loaded.error ? (
      <ErrorNotice error={loaded.error} onRetry={loaded.reload} />
    ) : (
      <p role="status">{t('console.loading')}</p>
    );
  }
  const { settings } = template;
  return (
    <>
      <p>
        <Link to="/templates">{t('templates.back')}</Link>
      </p>
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {template.name}{' '}
          {template.archived && <span className="badge tone-warning">{t('templates.state.archived')}</span>}
        </h1>
        <div className="form-actions tight">
          {!template.archived && (
            <Link to={`/templates/${id}/use`} className="button primary">
              {t('templates.detail.use')}
            </Link>
          )}
          {!template.archived && (
            <Link to={`/bulk-sends/new?template=${id}`} className="button">
              {t('templates.detail.bulk')}
            </Link>
          )}
          {!template.archived && (
            <Link to={`/templates/${id}/edit`} className="button">
              {t('templates.detail.edit')}
            </Link>
          )}
          <button
            type="button"
            className={`button ${template.archived ? '' : 'danger'}`}
            onClick={() => setDialog(true)}
          >
            {t(template.archived ? 'templates.detail.restore' : 'templates.detail.archive')}
          </button>
        </div>
      </div>
      {template.archived && (
        <p className="notice" role="status">
          {t('templates.detail.archivedNotice', { date: formatDate(template.archived_at) })}
        </p>
      )}
      {template.description && <p>{template.description}</p>}
      <div className="template-columns">
        <section className="card" aria-labelledby="settings-title">
          <h2 id="settings-title">{t('templates.detail.settings')}</h2>
          <dl className="facts">
            <dt>{t('templates.detail.version')}</dt>
            <dd>{template.version}</dd>
            <dt>{t('templates.field.message')}</dt>
            <dd>{settings.message || '—'}</dd>
            <dt>{t('templates.field.routing')}</dt>
            <dd>
              {t(settings.routing_order === 'parallel' ? 'templates.routing.parallel' : 'templates.routing.sequential')}
            </dd>
            <dt>{t('templates.field.expiry')}</dt>
            <dd>{settings.expire_in_days ?? '—'}</dd>
            <dt>{t('templates.detail.updated')}</dt>
            <dd>{formatDate(template.updated_at)}</dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="roles-title">
          <h2 id="roles-title">{t('templates.detail.roles')}</h2>
          <div className="table-wrap">
            <table className="data">
              <thead>
                <tr>
                  <th>{t('templates.roles.label')}</th>
                  <th>{t('templates.roles.key')}</th>
                  <th>{t('templates.roles.kind')}</th>
                  <th className="hide-narrow">{t('templates.roles.method')}</th>
                  <th className="hide-narrow">{t('templates.roles.sequence')}</th>
                </tr>
              </thead>
              <tbody>
                {template.roles.map((role) => (
                  <tr key={role.role_key}>
                    <td>{roleName(role)}</td>
                    <td>
                      <code>{role.role_key}</code>
                    </td>
                    <td>{t(`templates.role.${role.role}`)}</td>
                    <td className="hide-narrow">{t(`templates.method.${role.signature_method}`)}</td>
                    <td className="hide-narrow">{role.sequence}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      </div>
      <section className="card" aria-labelledby="documents-title">
        <h2 id="documents-title">{t('templates.detail.documents', { count: fieldCount(template) })}</h2>
        <ul className="tpl-document-list">
          {template.documents.map((doc) => (
            <li key={doc.document_id}>
              <strong>{doc.filename}</strong>{' '}
              <span className="muted small">
                {t('templates.detail.docFacts', { pages: doc.page_count, fields: doc.fields.length })}
              </span>
              {doc.fields.some((f) => f.field_key || f.label) && (
                <span className="small">
                  {' '}
                  ·{' '}
                  {t('templates.detail.named', {
                    list: doc.fields
                      .flatMap((f) => ((f.field_key ?? f.label) ? [f.field_key ?? f.label] : []))
                      .join(', '),
                  })}
                </span>
              )}
            </li>
          ))}
        </ul>
      </section>
      <VersionHistory templateId={id} latest={template.latest_version} />
      {dialog && (
        <ArchiveDialog
          template={template}
          onClose={() => setDialog(false)}
          onDone={(next) => {
            setChanged(next);
            setDialog(false);
          }}
        />
      )}
    </>
  );
}
