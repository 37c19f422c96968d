/**
 * /templates/:id/edit: name, settings, roles and fields (the shared field editor) of a template, saved as a
 * JSON Merge Patch with If-Match on the version being edited. Every save that changes something is a new version; a 412
 * means somebody else
 * saved in between, and the user may reload their version (this form's changes are then dropped).
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { useResource } from '../../use-resource';
import type { PortableTemplate, TemplateRole } from './model';
import { roleErrors, RolesEditor } from './RolesEditor';
import {
  documentsPatch,
  editorFieldsOf,
  TemplateFields,
  templateLayoutErrors,
  type FieldsByDocument,
} from './TemplateFields';
import './templates.css';

interface Draft {
  name: string;
  description: string;
  message: string;
  routing_order: 'sequential' | 'parallel';
  expire_in_days: string;
  retention_days: string;
  roles: TemplateRole[];
}

function draftOf(template: PortableTemplate): Draft {
  return {
    name: template.name,
    description: template.description ?? '',
    message: template.settings.message ?? '',
    routing_order: template.settings.routing_order,
    expire_in_days: template.settings.expire_in_days === null ? '' : String(template.settings.expire_in_days),
    retention_days: template.settings.retention_days == null ? '' : String(template.settings.retention_days),
    roles: template.roles.map((r) => ({ ...r })),
  };
}

function patchOf(draft: Draft): Record<string, unknown> {
  return {
    name: draft.name.trim(),
    description: draft.description.trim() || null,
    settings: {
      message: draft.message.trim() || null,
      routing_order: draft.routing_order,
      expire_in_days: draft.expire_in_days ? Number(draft.expire_in_days) : null,
      // Merged into the settings: null removes the template's own period (the account's policy applies again).
      retention_days: draft.retention_days ? Number(draft.retention_days) : null,
    },
    roles: draft.roles.map((r) => ({
      role_key: r.role_key.trim(),
      label: r.label?.trim() || null,
      role: r.role,
      signature_method: r.signature_method,
      sequence: r.sequence,
    })),
  };
}

function EditForm({ template, onReload }: { template: PortableTemplate; onReload(): void }) {
  const { t } = useT();
  const { navigate } = useRouter();
  const [draft, setDraft] = useState<Draft>(() => draftOf(template));
  const [fields, setFields] = useState<FieldsByDocument>(() => editorFieldsOf(template));
  // Documents go into the patch only when their fields were touched: an untouched layout stays byte-identical.
  const [fieldsTouched, setFieldsTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const conflict = error instanceof ApiError && error.status === 412;
  const layout = templateLayoutErrors(error, template, fields);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api<PortableTemplate>('PATCH', `/templates/${template.template_id}`, {
        json: { ...patchOf(draft), ...(fieldsTouched ? { documents: documentsPatch(template, fields) } : {}) },
        contentType: 'application/merge-patch+json',
        headers: { 'if-match': `"${template.version}"` },
      });
      navigate(`/templates/${template.template_id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
      requestAnimationFrame(() => alertRef.current?.focus());
    }
  };

  return (
    <form className="card tpl-form" onSubmit={(e) => void save(e)}>
      <div ref={alertRef} tabIndex={-1}>
        {conflict ? (
          <div className="notice notice-error" role="alert">
            <p>
              {t('templates.edit.conflict', {
                version: String((error.problem?.latest_version as number | undefined) ?? '?'),
              })}
            </p>
            <button type="button" className="button small" onClick={onReload}>
              {t('templates.edit.reload')}
            </button>
          </div>
        ) : layout ? (
          <div className="notice notice-error" role="alert">
            <p>{t('templates.edit.layoutRefused', { count: layout.byField.size + layout.general.length })}</p>
            {layout.general.map((m, i) => (
              <p key={i}>{m}</p>
            ))}
          </div>
        ) : (
          <ErrorNotice error={error} />
        )}
      </div>
      <div className="form-grid">
        <div className="form-field">
          <label htmlFor="edit-name">{t('templates.field.name')}</label>
          <input
            id="edit-name"
            required
            maxLength={500}
            value={draft.name}
            onChange={(e) => set({ name: e.target.value })}
          />
        </div>
        <div className="form-field">
          <label htmlFor="edit-description">{t('templates.field.description')}</label>
          <input
            id="edit-description"
            maxLength={10_000}
            value={draft.description}
            onChange={(e) => set({ description: e.target.value })}
          />
        </div>
        <div className="form-field">
          <label htmlFor="edit-message">{t('templates.field.message')}</label>
          <textarea
            id="edit-message"
            rows={3}
            maxLength={10_000}
            value={draft.message}
            onChange={(e) => set({ message: e.target.value })}
          />
        </div>
        <div className="form-field">
          <label htmlFor="edit-routing">{t('templates.field.routing')}</label>
          <select
            id="edit-routing"
            value={draft.routing_order}
            onChange={(e) => set({ routing_order: e.target.value as Draft['routing_order'] })}
          >
            <option value="sequential">{t('templates.routing.sequential')}</option>
            <option value="parallel">{t('templates.routing.parallel')}</option>
          </select>
        </div>
        <div className="form-field">
          <label htmlFor="edit-expiry">{t('templates.field.expiry')}</label>
          <input
            id="edit-expiry"
            type="number"
            min={1}
            max={3650}
            value={draft.expire_in_days}
            onChange={(e) => set({ expire_in_days: e.target.value })}
          />
        </div>
        <div className="form-field">
          <label htmlFor="edit-retention">{t('retention.template.label')}</label>
          <input
            id="edit-retention"
            type="number"
            min={1}
            max={36500}
            value={draft.retention_days}
            aria-describedby="edit-retention-hint"
            onChange={(e) => set({ retention_days: e.target.value })}
          />
          <span id="edit-retention-hint" className="hint">
            {t('retention.template.hint')}
          </span>
        </div>
      </div>
      <RolesEditor
        roles={draft.roles}
        onChange={(roles) => set({ roles })}
        fixedKeys={new Set(template.roles.map((r) => r.role_key))}
        errors={error instanceof ApiError ? roleErrors(error.problem) : undefined}
      />
      <TemplateFields
        template={template}
        roles={draft.roles}
        fields={fields}
        onChange={(next) => {
          setFields(next);
          setFieldsTouched(true);
        }}
        {...(layout ? { errors: layout.byField } : {})}
      />
      <p className="hint">{t('templates.edit.fieldsNote')}</p>
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy || conflict}>
          {busy ? t('templates.edit.saving') : t('templates.edit.save')}
        </button>
        <Link to={`/templates/${template.template_id}`} className="button">
          {t('templates.cancel')}
        </Link>
      </div>
    </form>
  );
}

export function TemplateEditPage({ params }: { params: Record<string, string> }) {
  const { t } = useT();
  const id = params.id!;
  const loaded = useResource((signal) => api<PortableTemplate>('GET', `/templates/${id}`, { signal }), [id]);
  const [generation, setGeneration] = useState(0);
  const template = loaded.data;
  useEffect(() => setGeneration((g) => g + 1), [template]);
  return (
    <>
      <p>
        <Link to={`/templates/${id}`}>{t('templates.use.back')}</Link>
      </p>
      <div className="page-head">
        <h1>
          {template
            ? t('templates.edit.title', { name: template.name, version: template.version })
            : t('templates.edit.titlePlain')}
        </h1>
      </div>
      <ErrorNotice error={loaded.error} onRetry={loaded.reload} />
      {!template && !loaded.error && <p role="status">{t('console.loading')}</p>}
      {template?.archived && (
        <p className="notice notice-error" role="alert">
          {t('templates.edit.archived')}
        </p>
      )}
      {template && !template.archived && <EditForm key={generation} template={template} onReload={loaded.reload} />}
    </>
  );
}
