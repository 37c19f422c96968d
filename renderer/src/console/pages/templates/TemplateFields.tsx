/**
 * The fields of a template's documents in the shared field editor (parties = the template's roles, so
 * party.key is the role_key), and the conversions between the portable template's fields and the editor's.
 * The server's 422 invalid_field_layout names fields as /documents/<d>/fields/<f>: shown on that field.
 */
import { useState } from 'react';
import { api, API_BASE, ApiError, call } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FieldEditor, type EditorDocument, type EditorField, type EditorParty } from '../../fields/FieldEditor';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { roleName, type PortableTemplate, type TemplateField, type TemplateRole } from './model';

interface DocumentFacts {
  document_id: string;
  pages: { width: number; height: number }[];
  signature_fields: { name: string; signed: boolean }[];
}

export type FieldsByDocument = Record<string, EditorField[]>;

export function partiesOf(roles: readonly TemplateRole[]): EditorParty[] {
  return roles.map((r) => ({ key: r.role_key, label: roleName(r), role: r.role, signatureMethod: r.signature_method }));
}

export function editorFieldsOf(template: PortableTemplate): FieldsByDocument {
  return Object.fromEntries(
    template.documents.map((d, di) => [
      d.document_id,
      d.fields.map((f, fi): EditorField => {
        // A USB DSC field placed by the PDF's own signature field has no coordinates in a template.
        const field: EditorField = {
          id: `${di}-${fi}`,
          party: f.role_key,
          field_type: f.field_type,
          page_number: f.page_number,
          x: f.x ?? 0,
          y: f.y ?? 0,
          width: f.width ?? 0,
          height: f.height ?? 0,
          required: f.required,
          editable: f.editable,
        };
        if (f.label !== null) field.label = f.label;
        if (f.value !== null) field.value = f.value;
        if (f.options !== null) field.options = f.options;
        if (f.pdf_signature_field !== null) field.pdf_signature_field = f.pdf_signature_field;
        if (f.field_key !== null) field.field_key = f.field_key;
        return field;
      }),
    ]),
  );
}

function templateFieldOf(f: EditorField): Partial<TemplateField> {
  const placement = f.pdf_signature_field
    ? { pdf_signature_field: f.pdf_signature_field, page_number: f.page_number }
    : { page_number: f.page_number, x: f.x, y: f.y, width: f.width, height: f.height, pdf_signature_field: null };
  return {
    role_key: f.party,
    field_type: f.field_type,
    ...placement,
    field_key: f.field_key?.trim() || null,
    label: f.label?.trim() || null,
    value: f.value !== undefined && f.value !== '' ? f.value : null,
    options: f.options?.length ? f.options : null,
    required: f.required ?? f.field_type !== 9,
    editable: f.editable ?? false,
  };
}

/** The merge patch's `documents`: every document kept (by document_id) with its fields. */
export function documentsPatch(template: PortableTemplate, fields: FieldsByDocument): unknown[] {
  return template.documents.map((d) => ({
    document_id: d.document_id,
    fields: (fields[d.document_id] ?? []).map(templateFieldOf),
  }));
}

/** A 422 invalid_field_layout as messages by editor field id, plus those naming no field. */
export function templateLayoutErrors(
  error: unknown,
  template: PortableTemplate,
  fields: FieldsByDocument,
): { byField: Map<string, string>; general: string[] } | null {
  if (!(error instanceof ApiError) || error.code !== 'invalid_field_layout') return null;
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const item of (error.problem?.errors ?? []) as { path?: string; message?: string }[]) {
    const match = /\/documents\/(\d+)\/fields\/(\d+)/.exec(item.path ?? '');
    const doc = match ? template.documents[Number(match[1])] : undefined;
    const field = doc && match ? fields[doc.document_id]?.[Number(match[2])] : undefined;
    const message = item.message ?? error.message;
    if (field) byField.set(field.id, byField.has(field.id) ? `${byField.get(field.id)!}; ${message}` : message);
    else general.push(message);
  }
  return { byField, general };
}

function editorDocument(doc: PortableTemplate['documents'][number], facts: DocumentFacts | undefined): EditorDocument {
  return {
    id: doc.document_id,
    name: doc.filename,
    ...(facts ? { pages: facts.pages } : {}),
    load: async () =>
      new Uint8Array(await (await call('GET', `${API_BASE}/documents/${doc.document_id}/content`)).arrayBuffer()),
  };
}

interface Props {
  template: PortableTemplate;
  roles: TemplateRole[];
  fields: FieldsByDocument;
  onChange(fields: FieldsByDocument): void;
  errors?: ReadonlyMap<string, string>;
}

export function TemplateFields({ template, roles, fields, onChange, errors }: Props) {
  const { t } = useT();
  const [active, setActive] = useState(template.documents[0]?.document_id ?? '');
  const facts = useResource(
    (signal) =>
      Promise.all(template.documents.map((d) => api<DocumentFacts>('GET', `/documents/${d.document_id}`, { signal }))),
    [template.template_id, template.version],
  );
  const doc = template.documents.find((d) => d.document_id === active);
  const docFacts = facts.data?.find((f) => f.document_id === active);
  const countErrors = (id: string) => (fields[id] ?? []).filter((f) => errors?.has(f.id)).length;
  if (!doc) return <p className="muted">{t('templates.fields.noDocument')}</p>;
  return (
    // Enter in a field's properties must not submit the whole template form.
    <section
      className="template-fields"
      aria-labelledby="template-fields-title"
      onKeyDown={(e) => {
        if (e.key === 'Enter' && e.target instanceof HTMLInputElement) e.preventDefault();
      }}
    >
      <h2 id="template-fields-title">{t('templates.fields.title')}</h2>
      <p className="hint">{t('templates.fields.hint')}</p>
      {template.documents.length > 1 && (
        <div className="document-tabs" role="group" aria-label={t('templates.fields.documents')}>
          {template.documents.map((d) => (
            <button
              key={d.document_id}
              type="button"
              aria-pressed={d.document_id === active}
              className={`button small${d.document_id === active ? ' primary' : ''}`}
              onClick={() => setActive(d.document_id)}
            >
              {d.filename}
              {countErrors(d.document_id) > 0 ? ' ⚠' : ''}
            </button>
          ))}
        </div>
      )}
      <ErrorNotice error={facts.error} onRetry={facts.reload} />
      {(facts.data !== undefined || facts.error !== undefined) && (
        <FieldEditor
          key={doc.document_id}
          document={editorDocument(doc, docFacts)}
          parties={partiesOf(roles)}
          fields={fields[doc.document_id] ?? []}
          onChange={(next) => onChange({ ...fields, [doc.document_id]: next })}
          {...(errors ? { errors } : {})}
          showFieldKey
          emptySignatureFields={docFacts?.signature_fields.filter((s) => !s.signed).map((s) => s.name) ?? []}
        />
      )}
    </section>
  );
}
