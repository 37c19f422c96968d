/**
 * Template vocabulary. A version's definition is stored whole (template_versions.definition) and never
 * changed; documents are referenced by workspace document id and SHA-256, so the bytes stay
 * content-addressed and shared between versions (and with the envelopes made from them).
 */
import type { Role, RoutingOrder, SignatureMethod } from '../envelopes/model.js';
import type { ReminderSettings } from '../workflow/reminder-settings.js';

export const TEMPLATE_FORMAT = 'mohar.template/v1';

export interface TemplateSettings {
  message: string | null;
  routing_order: RoutingOrder;
  expire_in_days: number | null;
  redirect_url: string | null;
  metadata: Record<string, unknown> | null;
  /** Default automatic reminders of the envelopes made from it (absent: the account's defaults apply). */
  reminders?: ReminderSettings;
  /**
   * Days after an envelope made from it finished that its documents are purged, replacing the account's policy
   * (shorter or longer, decision 41); absent: the account's policy applies (kept only when set: settings.ts).
   */
  retention_days?: number;
}

/** A slot that instantiation fills with a person: `{ role_key: { name, email } }`. */
export interface TemplateRole {
  role_key: string;
  label: string | null;
  role: Role;
  signature_method: SignatureMethod;
  sequence: number;
}

/**
 * An envelope field bound to a role instead of a recipient; stored placed (x/y/width/height) or by PDF signature field
 * name.
 */
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

export interface TemplateDefinition {
  name: string;
  description: string | null;
  settings: TemplateSettings;
  roles: TemplateRole[];
  documents: TemplateDocument[];
}

/** What callers send for a role (defaults filled in by validation). */
export interface RoleInput {
  role_key: string;
  label?: string | null;
  role?: Role;
  signature_method?: SignatureMethod;
  sequence?: number;
}

/** A field as callers send it: the envelope field shape with role_key (and an optional field_key). */
export interface FieldInputByRole {
  field_key?: string | null;
  role_key: string;
  field_type: number;
  page_number?: number;
  x?: number | null;
  y?: number | null;
  width?: number | null;
  height?: number | null;
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
  label?: string | null;
  value?: string | null;
  options?: string[] | null;
  pdf_signature_field?: string | null;
  required?: boolean;
  editable?: boolean;
}

export interface SettingsInput {
  message?: string | null;
  routing_order?: RoutingOrder;
  expire_in_days?: number | null;
  redirect_url?: string | null;
  metadata?: Record<string, unknown> | null;
  reminders?: Partial<ReminderSettings> | null;
  retention_days?: number | null;
}

/** A definition as callers send it; documents name a stored document (document_id) or an uploaded part (file). */
export interface DefinitionInput {
  name: string;
  description?: string | null;
  settings?: SettingsInput;
  roles?: RoleInput[];
  documents?: DocumentInput[];
}

export interface DocumentInput {
  document_id?: string;
  /** Multipart: the name of the file part holding this document's PDF. */
  file?: string;
  sha256?: string;
  filename?: string;
  /** Import: the PDF itself, base64. */
  content_base64?: string;
  fields?: FieldInputByRole[];
}

/** Who made a version or an audit row. */
export interface TemplateActor {
  readonly type: 'api_key' | 'user' | 'admin' | 'system';
  readonly id: string | null;
}
