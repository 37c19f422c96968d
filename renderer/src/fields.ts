/**
 * Field types (the interface's field_type numbers) and what the page does with them: which the signer fills,
 * which they draw or type once (signature, initials), which Mohar fills from the signer's details (shown as a
 * preview, exactly as the server will fill them: server/domain/workflow/field-values.ts), and when a field
 * counts as done.
 */
import type { AdoptedSignature, FieldValue, SignerField, SignerView } from './types';

export const FIELD = {
  SIGNATURE: 1,
  INITIAL: 2,
  DATE_SIGNED: 3,
  FULL_NAME: 4,
  FIRST_NAME: 5,
  LAST_NAME: 6,
  EMAIL: 7,
  TEXT: 8,
  CHECKBOX: 9,
  NUMBER: 10,
  DATE: 11,
  DROPDOWN: 12,
  RADIO: 13,
} as const;

const AUTO = new Set<number>([FIELD.DATE_SIGNED, FIELD.FULL_NAME, FIELD.FIRST_NAME, FIELD.LAST_NAME, FIELD.EMAIL]);

export function isAutoFilled(field: SignerField): boolean {
  return AUTO.has(field.field_type);
}

/** What the server will write into an auto-filled field. */
export function autoValue(field: SignerField, recipient: SignerView['recipient'], today: string): string {
  const parts = recipient.name.trim().split(/\s+/);
  switch (field.field_type) {
    case FIELD.DATE_SIGNED:
      return today;
    case FIELD.FULL_NAME:
      return recipient.name;
    case FIELD.FIRST_NAME:
      return parts[0] ?? '';
    case FIELD.LAST_NAME:
      return parts.length > 1 ? parts[parts.length - 1]! : '';
    case FIELD.EMAIL:
      return recipient.email;
    default:
      return '';
  }
}

/** Initials of a name ("Asha Rao" → "AR"): what the initials dialog offers to type. */
export function initialsOf(name: string): string {
  return name.trim().split(/\s+/).filter(Boolean).map((p) => p[0]!.toUpperCase()).join('');
}

/** Drawn like a signature: Signature and Initials fields are done by adopting a picture, not by a value. */
export function isAdopted(field: SignerField): boolean {
  return field.field_type === FIELD.SIGNATURE || field.field_type === FIELD.INITIAL;
}

/** Fields the signer must complete before the act: signatures, initials, and required fields they fill in. */
export function needsInput(field: SignerField): boolean {
  if (isAdopted(field)) return true;
  return !isAutoFilled(field) && field.required;
}

export function isComplete(field: SignerField, value: FieldValue | undefined, signature: AdoptedSignature | null, signatureDone = signature !== null, initials: AdoptedSignature | null = null): boolean {
  if (field.field_type === FIELD.SIGNATURE) return signatureDone;
  if (field.field_type === FIELD.INITIAL) return initials !== null;
  if (field.field_type === FIELD.CHECKBOX) return value === true;
  if (typeof value !== 'string' || value.trim() === '') return false;
  if (field.field_type === FIELD.NUMBER) return Number.isFinite(Number(value));
  if (field.field_type === FIELD.DATE) return /^\d{4}-\d{2}-\d{2}$/.test(value);
  return true;
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
    (rank.get(a.document_id) ?? 0) - (rank.get(b.document_id) ?? 0) || a.page_number - b.page_number || a.y - b.y || a.x - b.x;
}

/** The values sent with the act: only fields the signer fills (the server fills the others; signature and initials go apart). */
export function valuesToSend(fields: readonly SignerField[], values: Readonly<Record<string, FieldValue>>): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const f of fields) {
    if (isAdopted(f) || isAutoFilled(f)) continue;
    const v = values[f.field_id];
    if (v === undefined || (typeof v === 'string' && v.trim() === '')) continue;
    out[f.field_id] = f.field_type === FIELD.CHECKBOX ? v === true : v;
  }
  return out;
}
