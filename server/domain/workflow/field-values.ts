/**
 * The values a signer's act puts into their fields: what they typed or chose, and what Mohar fills from
 * their details (names, e-mail, date signed, initials). Every missing or wrong value is reported at once.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { FieldsTable, RecipientsTable } from '../../storage/schema.js';
import { FIELD_TYPES } from '../envelopes/field-types.js';
import { pdfFieldName } from './field-names.js';

export interface FilledValues {
  /** By PDF field name, for fillForm / the signature revision. */
  readonly pdf: Record<string, string | boolean>;
  /** By field id, stored on the field rows so later recipients see them. */
  readonly stored: Map<string, string>;
}

function initials(name: string): string {
  return name.split(/\s+/).filter(Boolean).map((part) => part[0]!.toUpperCase()).join('');
}

/**
 * A value the sender pre-assigned (fields.value at the signer's act: only their own act writes their
 * fields) is read-only unless the field is editable. Sending it back unchanged is fine (a page that
 * posts every field); a different value is refused, naming every such field.
 */
function assertReadOnlyKept(fields: readonly FieldsTable[], given: Readonly<Record<string, string | boolean>>): void {
  const changed = fields.filter((f) => {
    const value = given[f.id];
    if (value === undefined || f.value === null || f.editable === 1 || f.field_type === FIELD_TYPES.SIGNATURE) return false;
    return String(value) !== f.value;
  });
  if (changed.length === 0) return;
  const names = changed.map((f) => `"${f.label ?? f.id}"`).join(', ');
  throw new MoharError('field_read_only', `${changed.length === 1 ? 'field' : 'fields'} ${names} ${changed.length === 1 ? 'has a value' : 'have values'} set by the sender that cannot be changed`, {
    errors: changed.map((f) => ({ path: `/fields/${f.id}`, code: 'field_read_only', message: `${f.label ?? `field ${f.id}`} was pre-assigned "${f.value}" by the sender and is not editable` })),
  });
}

export function fillValues(fields: readonly FieldsTable[], recipient: Pick<RecipientsTable, 'name' | 'email'>, given: Readonly<Record<string, string | boolean>>, today: string): FilledValues {
  const errors: ErrorItem[] = [];
  assertReadOnlyKept(fields, given);
  const known = new Set(fields.map((f) => f.id));
  for (const id of Object.keys(given)) if (!known.has(id)) errors.push({ path: `/fields/${id}`, code: 'unknown_field', message: `field ${id} is not one of yours` });
  const parts = recipient.name.trim().split(/\s+/);
  const pdf: Record<string, string | boolean> = {};
  const stored = new Map<string, string>();
  for (const f of fields) {
    const name = pdfFieldName(f);
    const value = given[f.id] ?? f.value ?? undefined;
    let filled: string | boolean | undefined;
    switch (f.field_type) {
      case FIELD_TYPES.SIGNATURE:
        continue;
      case FIELD_TYPES.INITIAL: filled = initials(recipient.name); break;
      case FIELD_TYPES.DATE_SIGNED: filled = today; break;
      case FIELD_TYPES.FULL_NAME: filled = recipient.name; break;
      case FIELD_TYPES.FIRST_NAME: filled = parts[0] ?? ''; break;
      case FIELD_TYPES.LAST_NAME: filled = parts.length > 1 ? parts[parts.length - 1]! : ''; break;
      case FIELD_TYPES.EMAIL: filled = recipient.email; break;
      case FIELD_TYPES.CHECKBOX:
        filled = value === true || value === 'true';
        if (value !== undefined && typeof value !== 'boolean' && value !== 'true' && value !== 'false') errors.push({ path: `/fields/${f.id}`, code: 'value_invalid', message: `${f.label ?? 'checkbox'}: true or false` });
        break;
      default: {
        if (typeof value === 'boolean') {
          errors.push({ path: `/fields/${f.id}`, code: 'value_invalid', message: `${f.label ?? 'field'}: a text value is expected` });
          continue;
        }
        if (value === undefined || value.trim() === '') {
          if (f.required === 1) errors.push({ path: `/fields/${f.id}`, code: 'value_required', message: `${f.label ?? `field ${f.id}`} is required` });
          continue;
        }
        if (f.field_type === FIELD_TYPES.NUMBER && !Number.isFinite(Number(value))) errors.push({ path: `/fields/${f.id}`, code: 'value_invalid', message: `${f.label ?? 'number'}: a number is expected` });
        if (f.field_type === FIELD_TYPES.DATE && !/^\d{4}-\d{2}-\d{2}$/.test(value)) errors.push({ path: `/fields/${f.id}`, code: 'value_invalid', message: `${f.label ?? 'date'}: a date as YYYY-MM-DD is expected` });
        if (f.options !== null && !(JSON.parse(f.options) as string[]).includes(value)) errors.push({ path: `/fields/${f.id}`, code: 'value_invalid', message: `${f.label ?? 'choice'}: "${value}" is not an option` });
        filled = value;
      }
    }
    // A pre-assigned value is in the PDF since send (prepareForm wrote it): writing it again would only
    // redefine the field unchanged, which the revision guard rightly refuses as not form filling.
    if (f.value === null || String(filled) !== f.value) pdf[name] = filled;
    stored.set(f.id, String(filled));
  }
  if (errors.length > 0) throw new MoharError('invalid_field_values', `${errors.length} field value(s) missing or wrong: ${errors.map((e) => e.message).join('; ')}`, { errors });
  return { pdf, stored };
}
