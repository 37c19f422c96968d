/**
 * The template API's shapes as the console reads them (server/http/schemas/templates.ts, docs/templates.md),
 * and small helpers the template pages share.
 */
export type RoleKind = 'signer' | 'reviewer' | 'approver' | 'cc';
export type SignatureMethod = 'electronic' | 'aadhaar' | 'dsc' | 'review';
export const ROLE_KINDS: readonly RoleKind[] = ['signer', 'reviewer', 'approver', 'cc'];
export const SIGNATURE_METHODS: readonly SignatureMethod[] = ['electronic', 'aadhaar', 'dsc', 'review'];

export interface TemplateRole {
  role_key: string;
  label: string | null;
  role: RoleKind;
  signature_method: SignatureMethod;
  sequence: number;
}

export interface TemplateField {
  field_key: string | null;
  role_key: string;
  field_type: number;
  page_number: number;
  x: number | null;
  y: number | null;
  width: number | null;
  height: number | null;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  editable: boolean;
}

export interface TemplateDocument {
  document_id: string;
  filename: string;
  sha256: string;
  size: number;
  page_count: number;
  fields: TemplateField[];
}

export interface TemplateSettings {
  message: string | null;
  routing_order: 'sequential' | 'parallel';
  expire_in_days: number | null;
  redirect_url: string | null;
  metadata: Record<string, unknown> | null;
  /** Replaces the account's retention policy for the envelopes made from it; absent or null: the account's. */
  retention_days?: number | null;
}

export interface PortableTemplate {
  format: string;
  template_id: string;
  version: number;
  latest_version: number;
  name: string;
  description: string | null;
  archived: boolean;
  archived_at: string | null;
  settings: TemplateSettings;
  roles: TemplateRole[];
  documents: TemplateDocument[];
  created_at: string;
  updated_at: string;
  version_created_at: string;
}

export interface TemplateListItem {
  template_id: string;
  name: string;
  version: number;
  archived: boolean;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  /** The console user who created it; null: an API key or the system. */
  created_by: { user_id: string; email: string } | null;
}

export interface TemplateList {
  templates: TemplateListItem[];
  next_cursor: string | null;
}

export interface FieldRef {
  document: number;
  role_key: string;
  field_type: number;
  field_key: string | null;
}

export interface ChangeSummary {
  created_from?: string;
  name_changed: boolean;
  description_changed: boolean;
  settings_changed: string[];
  roles_added: string[];
  roles_removed: string[];
  roles_changed: string[];
  fields_added: FieldRef[];
  fields_removed: FieldRef[];
  fields_moved: FieldRef[];
  fields_changed: FieldRef[];
  documents_added: string[];
  documents_removed: string[];
  documents_replaced: { position: number; from_sha256: string; to_sha256: string }[];
}

export interface TemplateVersion {
  version: number;
  created_at: string;
  created_by: { type: string; id: string | null };
  summary: ChangeSummary;
}

export interface VersionList {
  versions: TemplateVersion[];
  next_before: number | null;
}

/** A role's name for people: its label, else its key. */
export function roleName(role: Pick<TemplateRole, 'label' | 'role_key'>): string {
  return role.label?.trim() || role.role_key;
}

export function fieldCount(template: PortableTemplate): number {
  return template.documents.reduce((sum, d) => sum + d.fields.length, 0);
}

/**
 * An Idempotency-Key for one form. crypto.randomUUID exists only in secure contexts; an office server on
 * plain http over the LAN is not one, so fall back to getRandomValues (available everywhere).
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
