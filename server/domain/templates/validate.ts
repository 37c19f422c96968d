/**
 * Turns what a caller sent into a complete, checked template definition. The rules are the envelope
 * API's own: recipients' role/method rules (normalizeRecipient), the DSC limits (checkDscLimits) and the
 * field-layout rules of the fields endpoint (validateFieldLayout), with role_key standing where an
 * envelope field has recipient_id. Errors name paths inside the template (/roles/1, /documents/0/fields/3).
 */
import { MoharError, isMoharError, type ErrorItem } from '../../../common/errors.js';
import { storedInfo, type DocumentRow } from '../documents/documents.js';
import { checkDscLimits } from '../envelopes/dsc-rules.js';
import { validateFieldLayout } from '../envelopes/field-layout.js';
import { normalizeRecipient } from '../envelopes/recipients.js';
import type { Role, SignatureMethod } from '../envelopes/model.js';
import type {
  DefinitionInput,
  FieldInputByRole,
  RoleInput,
  TemplateDefinition,
  TemplateDocument,
  TemplateField,
  TemplateRole,
  TemplateSettings,
} from './model.js';
import { layoutError, layoutInput, layoutRecipients } from './layout-input.js';
import { checkSettings } from './settings.js';

export const MAX_TEMPLATE_DOCUMENTS = 20;

export interface ResolvedDocument {
  readonly row: DocumentRow;
  readonly fields: readonly FieldInputByRole[];
}

function invalid(path: string, message: string): MoharError {
  return new MoharError('validation_failed', `${path}: ${message}`, { errors: [{ path, message }] });
}

export function checkRoles(inputs: readonly RoleInput[], settings: TemplateSettings): TemplateRole[] {
  const seen = new Set<string>();
  const roles: TemplateRole[] = [];
  inputs.forEach((input, index) => {
    if (seen.has(input.role_key)) {
      throw invalid(`/roles/${index}/role_key`, `role_key "${input.role_key}" is used twice`);
    }
    seen.add(input.role_key);
    let row;
    try {
      // The recipient rules of the envelope API, applied to the slot (the person comes at instantiation).
      row = normalizeRecipient(
        {
          name: input.role_key,
          email: 'slot@template.invalid',
          ...(input.role ? { role: input.role } : {}),
          ...(input.signature_method ? { signature_method: input.signature_method } : {}),
          ...(input.sequence === undefined ? {} : { sequence: input.sequence }),
        },
        settings.routing_order,
        roles,
        '',
        index + 1,
        '',
        index,
      );
    } catch (error) {
      if (isMoharError(error, 'validation_failed')) {
        const errors = (error.errors ?? []).map((e) => ({ ...e, path: e.path?.replace(/^\/recipients\//, '/roles/') }));
        throw new MoharError('validation_failed', error.message.replace(/^\/recipients\//, '/roles/'), { errors });
      }
      throw error;
    }
    roles.push({
      role_key: input.role_key,
      label: input.label ?? null,
      role: row.role as Role,
      signature_method: row.signature_method as SignatureMethod,
      sequence: row.sequence,
    });
  });
  return roles;
}

/** Checks one document's fields; returns them placed, or the errors with paths inside the template. */
export function checkDocumentFields(
  fields: readonly FieldInputByRole[],
  roles: readonly TemplateRole[],
  row: Pick<DocumentRow, 'info'>,
  documentIndex: number,
): { fields: TemplateField[]; errors: ErrorItem[] } {
  if (fields.length === 0) return { fields: [], errors: [] };
  const result = validateFieldLayout(fields.map(layoutInput), layoutRecipients(roles), storedInfo(row));
  if (!result.ok) {
    const errors = result.errors.map((e) => ({
      ...e,
      path: `/documents/${documentIndex}${e.path ?? ''}`,
      ...(e.code === 'unknown_recipient'
        ? { code: 'unknown_role', message: `role_key ${fields[e.index ?? 0]?.role_key} is not a role of this template` }
        : {}),
    }));
    return { fields: [], errors };
  }
  const placed = result.fields.map((p, i): TemplateField => {
    const named = p.pdf_signature_field !== null;
    return {
      field_key: fields[i]!.field_key ?? null,
      role_key: fields[i]!.role_key,
      field_type: p.field_type,
      page_number: p.page_number,
      x: named ? null : p.rect.x,
      y: named ? null : p.rect.y,
      width: named ? null : p.rect.width,
      height: named ? null : p.rect.height,
      label: p.label,
      value: p.value,
      options: p.options,
      pdf_signature_field: p.pdf_signature_field,
      required: p.required,
      editable: p.editable,
    };
  });
  return { fields: placed, errors: [] };
}

function checkFieldKeys(documents: readonly ResolvedDocument[]): void {
  const seen = new Map<string, string>();
  documents.forEach((d, di) =>
    d.fields.forEach((f, fi) => {
      if (f.field_key === undefined || f.field_key === null) return;
      const path = `/documents/${di}/fields/${fi}/field_key`;
      const previous = seen.get(f.field_key);
      if (previous !== undefined) throw invalid(path, `field_key "${f.field_key}" is used by ${previous} already`);
      seen.set(f.field_key, path);
    }),
  );
}

/**
 * The checks that need no PDF (name, settings, roles), run before any uploaded document is stored: a definition
 * that fails them stores nothing at all.
 */
export function precheckDefinition(input: DefinitionInput): void {
  if (typeof input.name !== 'string' || input.name.trim() === '') throw invalid('/name', 'must not be empty');
  checkRoles(input.roles ?? [], checkSettings(input.settings));
}

export function buildDefinition(input: DefinitionInput, documents: readonly ResolvedDocument[]): TemplateDefinition {
  const name = input.name.trim();
  if (name === '') throw invalid('/name', 'must not be empty');
  if (documents.length > MAX_TEMPLATE_DOCUMENTS) {
    throw invalid('/documents', `at most ${MAX_TEMPLATE_DOCUMENTS} documents`);
  }
  const settings = checkSettings(input.settings);
  const roles = checkRoles(input.roles ?? [], settings);
  checkDscLimits({ recipients: roles, documentCount: documents.length });
  checkFieldKeys(documents);
  const errors: ErrorItem[] = [];
  const placed: TemplateDocument[] = documents.map((d, index) => {
    const checked = checkDocumentFields(d.fields, roles, d.row, index);
    errors.push(...checked.errors);
    return {
      document_id: d.row.id,
      filename: d.row.filename,
      sha256: d.row.sha256,
      size: Number(d.row.size),
      page_count: d.row.page_count,
      fields: checked.fields,
    };
  });
  if (errors.length > 0) throw layoutError(errors);
  return { name, description: input.description ?? null, settings, roles, documents: placed };
}
