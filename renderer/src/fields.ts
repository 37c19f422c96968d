/**
 * What the signing page does with each field type (the types and their shared rules: common/fields.ts): which
 * the signer fills, which they draw or type once (signature, initials), which Mohar fills from the signer's
 * details (shown as a preview, exactly as the server will fill them: the same detailValue), and when a field
 * counts as done.
 */
import { DETAIL_FILLED_TYPES, detailValue, FIELD_TYPES, SIGNATURE_TYPES, valueMismatch } from '../../common/fields';
import type { AdoptedSignature, FieldValue, SignerField, SignerView } from './types';

export { initialsOf } from '../../common/fields';

/** The field_type numbers (common/fields.ts), by the short name the page's code uses. */
export const FIELD = FIELD_TYPES;

export function isAutoFilled(field: SignerField): boolean {
  return DETAIL_FILLED_TYPES.has(field.field_type);
}

/** What the server will write into an auto-filled field. */
export function autoValue(field: SignerField, recipient: SignerView['recipient'], today: string): string {
  return detailValue(field.field_type, recipient, today) ?? '';
}

/** Drawn like a signature: Signature and Initials fields are done by adopting a picture, not by a value. */
export function isAdopted(field: SignerField): boolean {
  return SIGNATURE_TYPES.has(field.field_type);
}

/** Fields the signer must complete before the act: signatures, initials, and required fields they fill in. */
export function needsInput(field: SignerField): boolean {
  if (isAdopted(field)) return true;
  return !isAutoFilled(field) && field.required;
}

export function isComplete(
  field: SignerField,
  value: FieldValue | undefined,
  signature: AdoptedSignature | null,
  signatureDone = signature !== null,
  initials: AdoptedSignature | null = null,
): boolean {
  if (field.field_type === FIELD.SIGNATURE) return signatureDone;
  if (field.field_type === FIELD.INITIAL) return initials !== null;
  if (field.field_type === FIELD.CHECKBOX) return value === true;
  if (typeof value !== 'string' || value.trim() === '') return false;
  // A Number's or Date's value fits its type as the server will judge it (common/fields.ts).
  return valueMismatch(field.field_type, value) === null;
}

/**
 * A value the sender pre-assigned and did not make editable: shown, sent back unchanged, never edited
 * (the server refuses a change with field_read_only).
 */
export function isPreassignedReadOnly(field: SignerField): boolean {
  return field.value !== null && field.editable !== true && !isAdopted(field) && !isAutoFilled(field);
}

/** The starting value of a field the signer fills: a pre-assigned value, else empty. */
export function initialValue(field: SignerField): FieldValue | undefined {
  if (field.field_type === FIELD.CHECKBOX) return field.value === 'true';
  if (isAutoFilled(field) || isAdopted(field)) return undefined;
  return field.value ?? '';
}

/** Reading order: document, page, then top to bottom, left to right. Keyboard focus follows it. */
export function readingOrder(documents: readonly { document_id: string }[]) {
  const rank = new Map(documents.map((d, i) => [d.document_id, i]));
  return (a: SignerField, b: SignerField) =>
    (rank.get(a.document_id) ?? 0) - (rank.get(b.document_id) ?? 0) ||
    a.page_number - b.page_number ||
    a.y - b.y ||
    a.x - b.x;
}

/**
 * The values sent with the act: only fields the signer fills (the server fills the others; signature and initials go
 * apart).
 */
export function valuesToSend(
  fields: readonly SignerField[],
  values: Readonly<Record<string, FieldValue>>,
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const f of fields) {
    if (isAdopted(f) || isAutoFilled(f)) continue;
    const v = values[f.field_id];
    if (v === undefined || (typeof v === 'string' && v.trim() === '')) continue;
    out[f.field_id] = f.field_type === FIELD.CHECKBOX ? v === true : v;
  }
  return out;
}
