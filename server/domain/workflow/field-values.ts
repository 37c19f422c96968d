/**
 * The values a signer's act puts into their fields: what they typed or chose, and what Mohar fills from
 * their details (names, e-mail, date signed). Every missing or wrong value is reported at once.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { FieldsTable, RecipientsTable } from '../../storage/schema.js';
import { detailValue, FIELD_TYPES, valueMismatch, type ValueMismatch } from '../../../common/fields.js';
import { pdfFieldName } from './field-names.js';

/** What a value that does not fit its field's type should be (common/fields.ts decides the fit). */
const EXPECTED: Readonly<Record<ValueMismatch, string>> = {
  checkbox: 'true or false',
  number: 'a number is expected',
  date: 'a date as YYYY-MM-DD is expected',
};

export interface FilledValues {
  /** By PDF field name, for fillForm / the signature revision. */
  readonly pdf: Record<string, string | boolean>;
  /** By field id, stored on the field rows so later recipients see them. */
  readonly stored: Map<string, string>;
}

/**
 * Values the signer cannot set are never dropped silently: a value the sender pre-assigned (fields.value
 * at the signer's act: only their own act writes their fields) is read-only unless the field is editable;
 * a field Mohar fills from the signer's details takes what Mohar fills; a Signature field is signed, not
 * filled. Sending such a value back unchanged is fine (a page that posts every field); a different value
 * is refused, naming every such field.
 */
function assertReadOnlyKept(
  fields: readonly FieldsTable[],
  given: Readonly<Record<string, string | boolean>>,
  auto: (f: FieldsTable) => string | undefined,
): void {
  const errors: ErrorItem[] = [];
  for (const f of fields) {
    const value = given[f.id];
    if (value === undefined) continue;
    const name = f.label ?? `field ${f.id}`;
    const filled = auto(f);
    if (f.field_type === FIELD_TYPES.SIGNATURE) {
      errors.push({
        path: `/fields/${f.id}`,
        code: 'field_read_only',
        message: `${name} is a Signature field: it is signed with the act's signature, not given a value`,
      });
    } else if (f.field_type === FIELD_TYPES.INITIAL) {
      errors.push({
        path: `/fields/${f.id}`,
        code: 'field_read_only',
        message: `${name} is an Initials field: send your initials once, drawn or typed, as "initials", not as a field value`,
      });
    } else if (filled !== undefined) {
      if (String(value) !== filled) {
        errors.push({
          path: `/fields/${f.id}`,
          code: 'field_read_only',
          message: `${name} is filled by Mohar from your details ("${filled}") and cannot be set`,
        });
      }
    } else if (f.value !== null && f.editable !== 1 && String(value) !== f.value) {
      errors.push({
        path: `/fields/${f.id}`,
        code: 'field_read_only',
        message: `${name} was pre-assigned "${f.value}" by the sender and is not editable`,
      });
    }
  }
  if (errors.length === 0) return;
  const names = errors
    .map((e) => {
      const f = fields.find((x) => `/fields/${x.id}` === e.path)!;
      return `"${f.label ?? f.id}"`;
    })
    .join(', ');
  throw new MoharError(
    'field_read_only',
    `${errors.length === 1 ? 'field' : 'fields'} ${names} cannot be changed: ${errors.map((e) => e.message).join('; ')}`,
    { errors },
  );
}

export function fillValues(
  fields: readonly FieldsTable[],
  recipient: Pick<RecipientsTable, 'name' | 'email'>,
  given: Readonly<Record<string, string | boolean>>,
  today: string,
): FilledValues {
  const errors: ErrorItem[] = [];
  // What Mohar fills from the signer's details; undefined for fields the signer fills.
  const auto = (f: FieldsTable) => detailValue(f.field_type, recipient, today);
  assertReadOnlyKept(fields, given, auto);
  const known = new Set(fields.map((f) => f.id));
  for (const id of Object.keys(given)) {
    if (!known.has(id)) {
      errors.push({ path: `/fields/${id}`, code: 'unknown_field', message: `field ${id} is not one of yours` });
    }
  }
  const pdf: Record<string, string | boolean> = {};
  const stored = new Map<string, string>();
  for (const f of fields) {
    const name = pdfFieldName(f);
    const value = given[f.id] ?? f.value ?? undefined;
    let filled: string | boolean | undefined = auto(f);
    // Signed, and drawn or typed once for every Initials field: the act writes those (electronic-act.ts).
    if (f.field_type === FIELD_TYPES.SIGNATURE || f.field_type === FIELD_TYPES.INITIAL) continue;
    if (filled === undefined) {
      if (f.field_type === FIELD_TYPES.CHECKBOX) {
        filled = value === true || value === 'true';
        if (value !== undefined && typeof value !== 'boolean' && value !== 'true' && value !== 'false') {
          errors.push({
            path: `/fields/${f.id}`,
            code: 'value_invalid',
            message: `${f.label ?? 'checkbox'}: ${EXPECTED.checkbox}`,
          });
        }
      } else {
        if (typeof value === 'boolean') {
          errors.push({
            path: `/fields/${f.id}`,
            code: 'value_invalid',
            message: `${f.label ?? 'field'}: a text value is expected`,
          });
          continue;
        }
        if (value === undefined || value.trim() === '') {
          if (f.required === 1) {
            errors.push({
              path: `/fields/${f.id}`,
              code: 'value_required',
              message: `${f.label ?? `field ${f.id}`} is required`,
            });
          }
          continue;
        }
        const mismatch = valueMismatch(f.field_type, value);
        if (mismatch !== null) {
          errors.push({
            path: `/fields/${f.id}`,
            code: 'value_invalid',
            message: `${f.label ?? mismatch}: ${EXPECTED[mismatch]}`,
          });
        }
        if (f.options !== null && !(JSON.parse(f.options) as string[]).includes(value)) {
          errors.push({
            path: `/fields/${f.id}`,
            code: 'value_invalid',
            message: `${f.label ?? 'choice'}: "${value}" is not an option`,
          });
        }
        filled = value;
      }
    }
    // A pre-assigned value is in the PDF since send (prepareForm wrote it): writing it again would only
    // redefine the field unchanged, which the revision guard rightly refuses as not form filling.
    if (f.value === null || String(filled) !== f.value) pdf[name] = filled;
    stored.set(f.id, String(filled));
  }
  if (errors.length > 0) {
    throw new MoharError(
      'invalid_field_values',
      `${errors.length} field value(s) missing or wrong: ${errors.map((e) => e.message).join('; ')}`,
      { errors },
    );
  }
  return { pdf, stored };
}
