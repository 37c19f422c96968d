/**
 * /templates/:id/use: one envelope from a template. People are mapped to its roles, fields with a field_key
 * may be filled in advance, and the draft is created (or sent at once). One Idempotency-Key per form, so a
 * double click or a retry after a lost answer never makes two envelopes.
 */
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { useResource } from '../../use-resource';
import { newIdempotencyKey, roleName, type PortableTemplate, type TemplateField } from './model';
import './templates.css';

interface Person {
  name: string;
  email: string;
}

/** Fields that take a value and have a key to give it by (instantiate's field_values). */
function prefillFields(template: PortableTemplate): { key: string; field: TemplateField }[] {
  const seen = new Set<string>();
  return template.documents
    .flatMap((d) => d.fields)
    .flatMap((field) => {
      if (!field.field_key || field.field_type < 8 || seen.has(field.field_key)) return [];
      seen.add(field.field_key);
      return [{ key: field.field_key, field }];
    });
}

/** The server's problems by what they name: a role key (/recipients/<key>) or a field key. */
function problemsByName(error: unknown, template: PortableTemplate): Map<string, string> {
  const map = new Map<string, string>();
  if (!(error instanceof ApiError)) return map;
  const fields = template.documents.map((d) => d.fields);
  for (const item of (error.problem?.errors ?? []) as { path?: string; message?: string }[]) {
    const path = item.path ?? '';
    const role = /\/recipients\/([^/]+)/.exec(path);
    const value = /\/field_values\/([^/]+)/.exec(path);
    const layout = /\/documents\/(\d+)\/fields\/(\d+)/.exec(path);
    const key = role
      ? `role:${role[1]}`
      : value
        ? `field:${value[1]}`
        : layout
          ? `field:${fields[Number(layout[1])]?.[Number(layout[2])]?.field_key ?? ''}`
          : null;
    if (key && item.message && !map.has(key)) map.set(key, item.message);
  }
  return map;
}

function ValueInput({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: TemplateField;
  value: string;
  onChange(v: string): void;
}) {
  const { t } = useT();
  if ((field.field_type === 12 || field.field_type === 13) && field.options?.length) {
    return (
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t('templates.use.noValue')}</option>
        {field.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  if (field.field_type === 9) {
    return (
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t('templates.use.noValue')}</option>
        <option value="true">{t('templates.use.checked')}</option>
        <option value="false">{t('templates.use.unchecked')}</option>
      </select>
    );
  }
  const type = field.field_type === 10 ? 'number' : field.field_type === 11 ? 'date' : 'text';
  return (
    <input
      id={id}
      type={type}
      value={value}
      step={type === 'number' ? 'any' : undefined}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

function UseForm({ template }: { template: PortableTemplate }) {
  const { t } = useT();
  const { navigate } = useRouter();
  const [people, setPeople] = useState<Record<string, Person>>(() =>
    Object.fromEntries(template.roles.map((r) => [r.role_key, { name: '', email: '' }])),
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [title, setTitle] = useState(template.name);
  const [message, setMessage] = useState(template.settings.message ?? '');
  const [busy, setBusy] = useState<'draft' | 'send' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const idempotencyKey = useMemo(newIdempotencyKey, []);
  const prefill = prefillFields(template);
  const problems = problemsByName(error, template);

  const submit = async (event: FormEvent, send: boolean) => {
    event.preventDefault();
    if (busy) return;
    setBusy(send ? 'send' : 'draft');
    setError(null);
    const fieldValues = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    try {
      const envelope = await api<{ id: string }>('POST', `/templates/${template.template_id}/instantiate`, {
        headers: { 'idempotency-key': `${idempotencyKey}-${send ? 'send' : 'draft'}` },
        json: {
          version: template.version,
          title: title.trim() || template.name,
          ...(message.trim() ? { message: message.trim() } : {}),
          recipients: Object.fromEntries(
            Object.entries(people).map(([key, p]) => [key, { name: p.name.trim(), email: p.email.trim() }]),
          ),
          ...(Object.keys(fieldValues).length ? { field_values: fieldValues } : {}),
          send,
        },
      });
      navigate(`/envelopes/${envelope.id}`);
    } catch (failure) {
      setError(failure);
      setBusy(null);
      requestAnimationFrame(() => errorRef.current?.focus());
    }
  };

  return (
    <form className="card tpl-form" onSubmit={(e) => void submit(e, false)}>
      <div className="form-grid">
        <div className="form-field">
          <label htmlFor="use-title">{t('templates.use.envelopeTitle')}</label>
          <input id="use-title" value={title} maxLength={500} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="form-field">
          <label htmlFor="use-message">{t('templates.field.message')}</label>
          <textarea id="use-message" value={message} rows={2} onChange={(e) => setMessage(e.target.value)} />
        </div>
      </div>
      <fieldset>
        <legend>{t('templates.use.people')}</legend>
        {template.roles.map((role) => {
          const person = people[role.role_key]!;
          const set = (change: Partial<Person>) => setPeople({ ...people, [role.role_key]: { ...person, ...change } });
          const problem = problems.get(`role:${role.role_key}`);
          return (
            <div key={role.role_key} className="role-person">
              <h3>
                {roleName(role)}{' '}
                <span className="muted small">
                  ({t(`templates.role.${role.role}`)}, {t(`templates.method.${role.signature_method}`)})
                </span>
              </h3>
              <div className="form-grid">
                <div className="form-field">
                  <label htmlFor={`name-${role.role_key}`}>{t('templates.use.name', { role: roleName(role) })}</label>
                  <input
                    id={`name-${role.role_key}`}
                    required
                    autoComplete="off"
                    value={person.name}
                    onChange={(e) => set({ name: e.target.value })}
                  />
                </div>
                <div className="form-field">
                  <label htmlFor={`email-${role.role_key}`}>{t('templates.use.email', { role: roleName(role) })}</label>
                  <input
                    id={`email-${role.role_key}`}
                    type="email"
                    required
                    autoComplete="off"
                    value={person.email}
                    onChange={(e) => set({ email: e.target.value })}
                  />
                </div>
              </div>
              {problem && <p className="field-error">{problem}</p>}
            </div>
          );
        })}
      </fieldset>
      {prefill.length > 0 && (
        <fieldset>
          <legend>{t('templates.use.values')}</legend>
          <p className="hint">{t('templates.use.valuesHint')}</p>
          <div className="form-grid">
            {prefill.map(({ key, field }) => (
              <div key={key} className="form-field">
                <label htmlFor={`value-${key}`}>{field.label || key}</label>
                <ValueInput
                  id={`value-${key}`}
                  field={field}
                  value={values[key] ?? ''}
                  onChange={(v) => setValues({ ...values, [key]: v })}
                />
                {problems.get(`field:${key}`) && <span className="field-error">{problems.get(`field:${key}`)}</span>}
              </div>
            ))}
          </div>
        </fieldset>
      )}
      <div ref={errorRef} tabIndex={-1}>
        <ErrorNotice error={error} />
      </div>
      <div className="form-actions">
        <button type="submit" className="button" disabled={busy !== null}>
          {busy === 'draft' ? t('templates.use.creating') : t('templates.use.draft')}
        </button>
        <button
          type="button"
          className="button primary"
          disabled={busy !== null}
          onClick={(e) => {
            const form = e.currentTarget.form!;
            if (form.reportValidity()) void submit(e, true);
          }}
        >
          {busy === 'send' ? t('templates.use.sending') : t('templates.use.send')}
        </button>
      </div>
    </form>
  );
}

export function UseTemplatePage({ params }: { params: Record<string, string> }) {
  const { t } = useT();
  const id = params.id!;
  const loaded = useResource((signal) => api<PortableTemplate>('GET', `/templates/${id}`, { signal }), [id]);
  const template = loaded.data;
  return (
    <>
      <p>
        <Link to={`/templates/${id}`}>{t('templates.use.back')}</Link>
      </p>
      <div className="page-head">
        <h1>{template ? t('templates.use.title', { name: template.name }) : t('templates.use.titlePlain')}</h1>
      </div>
      <ErrorNotice error={loaded.error} onRetry={loaded.reload} />
      {!template && !loaded.error && <p role="status">{t('console.loading')}</p>}
      {template?.archived && (
        <p className="notice notice-error" role="alert">
          {t('templates.use.archived')} <Link to={`/templates/${id}`}>{t('templates.use.back')}</Link>
        </p>
      )}
      {template && !template.archived && (
        <>
          <p className="muted">{t('templates.use.intro', { version: template.version })}</p>
          <UseForm template={template} />
        </>
      )}
    </>
  );
}
