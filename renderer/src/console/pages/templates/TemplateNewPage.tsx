/**
 * /templates/new: a template from an existing envelope (its documents, fields and recipients become the
 * template's; the envelope is not changed) or from uploaded PDFs with roles (fields are placed afterwards).
 */
import { useMemo, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useRouter } from '../../router';
import { useResource } from '../../use-resource';
import { PdfDropZone } from './PdfDropZone';
import { newIdempotencyKey, type PortableTemplate, type TemplateRole } from './model';
import { roleErrors, RolesEditor } from './RolesEditor';
import './templates.css';

interface EnvelopeSummary {
  id: string;
  title: string;
  status: string;
  created_at: string;
  recipients: { name: string }[];
}

function EnvelopeSource({ value, onChange }: { value: string; onChange(id: string, title: string): void }) {
  const { t, formatDate } = useT();
  const [q, setQ] = useState('');
  const list = useResource(
    (signal) => {
      const query = new URLSearchParams({ limit: '50' });
      for (const status of ['draft', 'sent', 'completed']) query.append('status', status);
      if (q.trim()) query.set('q', q.trim());
      return api<{ envelopes: EnvelopeSummary[] }>('GET', `/envelopes?${query.toString()}`, { signal });
    },
    [q],
  );
  const envelopes = list.data?.envelopes ?? [];
  return (
    <fieldset>
      <legend>{t('templates.new.pickEnvelope')}</legend>
      <div className="form-field">
        <label htmlFor="envelope-search">{t('templates.new.searchEnvelopes')}</label>
        <input id="envelope-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
      </div>
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.data && envelopes.length === 0 && <p className="muted">{t('templates.new.noEnvelopes')}</p>}
      <ul className="choice-list">
        {envelopes.map((envelope) => (
          <li key={envelope.id}>
            <label>
              <input
                type="radio"
                name="source-envelope"
                value={envelope.id}
                checked={value === envelope.id}
                onChange={() => onChange(envelope.id, envelope.title)}
              />
              <span>
                <strong>{envelope.title}</strong> <span className="badge">{envelope.status}</span>
                <span className="muted small">
                  {' '}
                  {envelope.recipients.map((r) => r.name).join(', ')} · {formatDate(envelope.created_at)}
                </span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

export function TemplateNewPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const { query, navigate } = useRouter();
  const [mode, setMode] = useState<'envelope' | 'upload'>(query.get('from') === 'upload' ? 'upload' : 'envelope');
  const [envelopeId, setEnvelopeId] = useState(query.get('envelope') ?? '');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [roles, setRoles] = useState<TemplateRole[]>([
    { role_key: 'signer_1', label: '', role: 'signer', signature_method: 'electronic', sequence: 1 },
  ]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // One key per form: a double click (or a retry after a lost answer) never makes two templates.
  const idempotencyKey = useMemo(newIdempotencyKey, [mode, envelopeId, files]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (mode === 'envelope' && !envelopeId) return setError(new Error(t('templates.new.needEnvelope')));
    if (mode === 'upload' && files.length === 0) return setError(new Error(t('templates.new.needPdf')));
    setBusy(true);
    try {
      const headers = { 'idempotency-key': idempotencyKey };
      let created: PortableTemplate;
      if (mode === 'envelope') {
        created = await api<PortableTemplate>('POST', '/templates', {
          headers,
          json: {
            source_envelope_id: envelopeId,
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(description.trim() ? { description: description.trim() } : {}),
          },
        });
      } else {
        const form = new FormData();
        const definition = {
          name: name.trim(),
          description: description.trim() || null,
          roles: roles.map((r) => ({ ...r, label: r.label?.trim() || null })),
          documents: files.map((_, i) => ({ file: `pdf${i}`, fields: [] })),
        };
        form.append('template', JSON.stringify(definition));
        files.forEach((file, i) => form.append(`pdf${i}`, file, file.name));
        created = await api<PortableTemplate>('POST', '/templates', { headers, form });
      }
      navigate(`/templates/${created.template_id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  const problems = error instanceof ApiError ? roleErrors(error.problem) : undefined;

  return (
    <>
      <div className="page-head">
        <h1>{t('templates.new.title')}</h1>
      </div>
      <form className="card tpl-form" onSubmit={(e) => void submit(e)} noValidate={false}>
        <fieldset className="mode-switch">
          <legend>{t('templates.new.from')}</legend>
          <label>
            <input type="radio" name="mode" checked={mode === 'envelope'} onChange={() => setMode('envelope')} />{' '}
            {t('templates.new.fromEnvelope')}
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === 'upload'} onChange={() => setMode('upload')} />{' '}
            {t('templates.new.fromUpload')}
          </label>
        </fieldset>
        <div className="form-grid">
          <div className="form-field">
            <label htmlFor="template-name">{t('templates.field.name')}</label>
            <input
              id="template-name"
              value={name}
              required={mode === 'upload'}
              maxLength={500}
              onChange={(e) => setName(e.target.value)}
            />
            {mode === 'envelope' && <span className="hint">{t('templates.new.nameHint')}</span>}
          </div>
          <div className="form-field">
            <label htmlFor="template-description">{t('templates.field.description')}</label>
            <input
              id="template-description"
              value={description}
              maxLength={10_000}
              onChange={(e) => setDescription(e.target.value)}
            />
          </div>
        </div>
        {mode === 'envelope' ? (
          <EnvelopeSource
            value={envelopeId}
            onChange={(id, title) => {
              setEnvelopeId(id);
              if (!name) setName(title);
            }}
          />
        ) : (
          <>
            <PdfDropZone files={files} onChange={setFiles} />
            <RolesEditor roles={roles} onChange={setRoles} errors={problems} />
            <p className="hint">{t('templates.new.fieldsLater')}</p>
          </>
        )}
        <ErrorNotice error={error} />
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('templates.new.creating') : t('templates.new.create')}
          </button>
          <button type="button" className="button" onClick={() => navigate('/templates')}>
            {t('templates.cancel')}
          </button>
        </div>
      </form>
    </>
  );
}
