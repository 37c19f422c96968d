/**
 * The envelope API as compose uses it: the draft's shape (GET /envelopes/{id}), the draft edits, fields in
 * and out of the editor's model, and the server's 422 invalid_field_layout errors mapped onto field ids.
 */
import { API_BASE, api, ApiError, call } from '../../api';
import type { EditorDocument, EditorField, EditorParty } from '../../fields/FieldEditor';

export type Role = EditorParty['role'];
export type Method = EditorParty['signatureMethod'];
export const ROLES: readonly Role[] = ['signer', 'reviewer', 'approver', 'cc'];
export const METHODS: readonly Method[] = ['electronic', 'aadhaar', 'dsc', 'review'];

export interface RecipientView {
  recipient_id: string;
  name: string;
  email: string;
  role: Role;
  signature_method: Method;
  sequence: number;
}

export interface FieldView {
  field_id: string;
  recipient_id: string;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  editable: boolean;
}

export interface DocumentView {
  document_id: string;
  filename: string;
  page_count: number;
  pages: { page_number: number; width: number; height: number; rotate: number }[];
  signature_fields: { name: string; signed: boolean; page_number: number | null }[];
  fields?: FieldView[];
}

export interface EnvelopeView {
  id: string;
  title: string;
  status: string;
  message: string | null;
  routing_order: 'sequential' | 'parallel';
  recipients: RecipientView[];
  documents: DocumentView[];
}

export interface RecipientInput {
  name: string;
  email: string;
  role: Role;
  signature_method: Method;
  sequence?: number;
}

export interface DetailsInput {
  title: string;
  message: string;
  routing_order: 'sequential' | 'parallel';
}

export const loadEnvelope = (id: string, signal?: AbortSignal) =>
  api<EnvelopeView>('GET', `/envelopes/${id}`, signal ? { signal } : {});

export function createEnvelope(details: DetailsInput): Promise<EnvelopeView> {
  return api<EnvelopeView>('POST', '/envelopes', {
    json: {
      title: details.title,
      routing_order: details.routing_order,
      ...(details.message ? { message: details.message } : {}),
    },
  });
}

/** A JSON Merge Patch of the draft's title, message and routing order (message '' clears it). */
export function patchEnvelope(id: string, details: DetailsInput): Promise<EnvelopeView> {
  return api<EnvelopeView>('PATCH', `/envelopes/${id}`, {
    json: {
      title: details.title,
      message: details.message === '' ? null : details.message,
      routing_order: details.routing_order,
    },
    contentType: 'application/merge-patch+json',
  });
}

export function uploadDocument(id: string, file: File): Promise<DocumentView> {
  const form = new FormData();
  form.append('file', file, file.name);
  return api<DocumentView>('POST', `/envelopes/${id}/documents`, { form });
}

export const removeDocument = (id: string, documentId: string) =>
  api<void>('DELETE', `/envelopes/${id}/documents/${documentId}`);
export const addRecipient = (id: string, input: RecipientInput) =>
  api<RecipientView>('POST', `/envelopes/${id}/recipients`, { json: input });
export const patchRecipient = (id: string, recipientId: string, input: Partial<RecipientInput>) =>
  api<RecipientView>('PATCH', `/envelopes/${id}/recipients/${recipientId}`, { json: input });
export const removeRecipient = (id: string, recipientId: string) =>
  api<void>('DELETE', `/envelopes/${id}/recipients/${recipientId}`);
export const sendEnvelope = (id: string) => api<unknown>('POST', `/envelopes/${id}/send`);
export const saveAsTemplate = (id: string, name: string) =>
  api<{ template_id: string }>('POST', '/templates', { json: { source_envelope_id: id, name } });

export function editorDocument(doc: DocumentView): EditorDocument {
  return {
    id: doc.document_id,
    name: doc.filename,
    pages: doc.pages.map((p) => ({ width: p.width, height: p.height })),
    load: async () =>
      new Uint8Array(await (await call('GET', `${API_BASE}/documents/${doc.document_id}/content`)).arrayBuffer()),
  };
}

export function toEditorField(f: FieldView): EditorField {
  const field: EditorField = {
    id: f.field_id,
    party: f.recipient_id,
    field_type: f.field_type,
    page_number: f.page_number,
    x: f.x,
    y: f.y,
    width: f.width,
    height: f.height,
    required: f.required,
    editable: f.editable,
  };
  if (f.label !== null) field.label = f.label;
  if (f.value !== null) field.value = f.value;
  if (f.options !== null) field.options = f.options;
  if (f.pdf_signature_field !== null) field.pdf_signature_field = f.pdf_signature_field;
  return field;
}

/** The PUT body's field: a field placed into the PDF's own signature field carries no coordinates. */
export function toFieldBody(f: EditorField): Record<string, unknown> {
  const placement = f.pdf_signature_field
    ? { pdf_signature_field: f.pdf_signature_field }
    : { page_number: f.page_number, x: f.x, y: f.y, width: f.width, height: f.height };
  return {
    recipient_id: f.party,
    field_type: f.field_type,
    ...placement,
    ...(f.label ? { label: f.label } : {}),
    ...(f.value !== undefined && f.value !== '' ? { value: f.value, editable: f.editable ?? false } : {}),
    ...(f.options ? { options: f.options } : {}),
    ...(f.required !== undefined ? { required: f.required } : {}),
  };
}

export interface FieldsAnswer {
  fields: FieldView[];
}

export const saveFields = (id: string, documentId: string, fields: readonly EditorField[]) =>
  api<FieldsAnswer>('PUT', `/envelopes/${id}/documents/${documentId}/fields`, {
    json: { fields: fields.map(toFieldBody) },
  });

interface ErrorItem {
  index?: number;
  path?: string;
  message?: string;
}

/**
 * A 422 invalid_field_layout answer as messages by field id (its errors name fields by index: /fields/3/x),
 * plus the problems that name no field (e.g. "a USB DSC signer needs a Signature field").
 */
export function layoutErrors(
  error: unknown,
  fields: readonly EditorField[],
): { byField: Map<string, string>; general: string[] } | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  const items = (error.problem as { errors?: ErrorItem[] } | undefined)?.errors;
  if (!Array.isArray(items)) return null;
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const item of items) {
    const index = item.index ?? Number(/^\/fields\/(\d+)/.exec(item.path ?? '')?.[1] ?? NaN);
    const field = Number.isInteger(index) ? fields[index] : undefined;
    const message = item.message ?? error.message;
    if (field) byField.set(field.id, byField.has(field.id) ? `${byField.get(field.id)!}; ${message}` : message);
    else general.push(message);
  }
  return { byField, general };
}
