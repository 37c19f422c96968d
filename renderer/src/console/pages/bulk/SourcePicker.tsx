/**
 * Step 1 of a bulk send: the source, a draft envelope or a template (and which version of it). Templates
 * and drafts are listed from the API; a page opened with ?template= or ?envelope= starts with that one.
 */
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import type { PortableTemplate, TemplateList } from '../templates/model';

export interface Source {
  kind: 'envelope' | 'template';
  id: string;
  version: number | null;
}

interface DraftSummary {
  id: string;
  title: string;
  created_at: string;
  recipients: { name: string }[];
}

function TemplateVersions({
  id,
  version,
  onChange,
}: {
  id: string;
  version: number | null;
  onChange(v: number | null): void;
}) {
  const { t } = useT();
  const template = useResource((signal) => api<PortableTemplate>('GET', `/templates/${id}`, { signal }), [id]);
  const latest = template.data?.latest_version ?? 0;
  return (
    <div className="form-field">
      <label htmlFor="bulk-version">{t('bulk.source.version')}</label>
      <select
        id="bulk-version"
        value={version ?? ''}
        onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
      >
        <option value="">{t('bulk.source.latest', { version: latest || '…' })}</option>
        {Array.from({ length: latest }, (_, i) => latest - i).map((v) => (
          <option key={v} value={v}>
            {t('bulk.source.versionN', { version: v })}
          </option>
        ))}
      </select>
    </div>
  );
}

export function SourcePicker({ source, onChange }: { source: Source; onChange(source: Source): void }) {
  const { t, formatDate } = useT();
  const templates = useResource((signal) => api<TemplateList>('GET', '/templates?limit=200', { signal }), []);
  const drafts = useResource(
    (signal) => api<{ envelopes: DraftSummary[] }>('GET', '/envelopes?status=draft&limit=100', { signal }),
    [],
  );
  const setKind = (kind: Source['kind']) => onChange({ kind, id: '', version: null });
  return (
    <fieldset>
      <legend>{t('bulk.new.step1')}</legend>
      <div className="mode-switch" role="radiogroup" aria-label={t('bulk.source.kind')}>
        <label>
          <input
            type="radio"
            name="source-kind"
            checked={source.kind === 'template'}
            onChange={() => setKind('template')}
          />{' '}
          {t('bulk.source.template')}
        </label>
        <label>
          <input
            type="radio"
            name="source-kind"
            checked={source.kind === 'envelope'}
            onChange={() => setKind('envelope')}
          />{' '}
          {t('bulk.source.draft')}
        </label>
      </div>
      {source.kind === 'template' ? (
        <div className="form-grid">
          <div className="form-field">
            <label htmlFor="bulk-template">{t('bulk.source.pickTemplate')}</label>
            <select
              id="bulk-template"
              value={source.id}
              onChange={(e) => onChange({ kind: 'template', id: e.target.value, version: null })}
            >
              <option value="">{t('bulk.source.choose')}</option>
              {templates.data?.templates.map((tpl) => (
                <option key={tpl.template_id} value={tpl.template_id}>
                  {tpl.name}
                </option>
              ))}
            </select>
            {templates.data?.templates.length === 0 && <span className="hint">{t('bulk.source.noTemplates')}</span>}
          </div>
          {source.id && (
            <TemplateVersions
              id={source.id}
              version={source.version}
              onChange={(version) => onChange({ ...source, version })}
            />
          )}
        </div>
      ) : (
        <div className="form-field">
          <label htmlFor="bulk-envelope">{t('bulk.source.pickDraft')}</label>
          <select
            id="bulk-envelope"
            value={source.id}
            onChange={(e) => onChange({ kind: 'envelope', id: e.target.value, version: null })}
          >
            <option value="">{t('bulk.source.choose')}</option>
            {drafts.data?.envelopes.map((d) => (
              <option key={d.id} value={d.id}>
                {d.title} · {d.recipients.map((r) => r.name).join(', ')} · {formatDate(d.created_at)}
              </option>
            ))}
            {/* A draft named by ?envelope= that is not among the latest ones listed. */}
            {source.id && drafts.data && !drafts.data.envelopes.some((d) => d.id === source.id) && (
              <option value={source.id}>{source.id}</option>
            )}
          </select>
          {drafts.data?.envelopes.length === 0 && <span className="hint">{t('bulk.source.noDrafts')}</span>}
        </div>
      )}
      <ErrorNotice
        error={source.kind === 'template' ? templates.error : drafts.error}
        onRetry={source.kind === 'template' ? templates.reload : drafts.reload}
      />
    </fieldset>
  );
}

/** The query or body members that name a source in the bulk-send API. */
export function sourceParams(source: Source): Record<string, string | number> {
  if (source.kind === 'envelope') return { source_envelope_id: source.id };
  return { source_template_id: source.id, ...(source.version ? { template_version: source.version } : {}) };
}
