/**
 * The interface's field types (the API's field_type numbers) and what every layer knows about each: one descriptor
 * per type (its name, the size the console's editor gives a new one, how it gets its value) and the rules the
 * server and the pages share: which Mohar fills from the signer's details or the act, what it writes there, which
 * values fit, which recipients may hold which type. The server enforces these rules
 * (server/domain/envelopes/field-layout.ts, server/domain/workflow/field-values.ts), pdf/prepare/prepare-form.ts
 * makes the AcroForm fields by them, the signing page previews them and the console's field editor checks them
 * while placing. A leaf: it imports nothing of Mohar.
 */

/** The API's field_type numbers, by the API's names. */
export const FIELD_TYPES = {
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

export type FieldType = (typeof FIELD_TYPES)[keyof typeof FIELD_TYPES];

/** Every field type, 1 to 13. */
export const ALL_FIELD_TYPES: readonly FieldType[] = Object.values(FIELD_TYPES);

export function isFieldType(value: number): value is FieldType {
  return (ALL_FIELD_TYPES as readonly number[]).includes(value);
}

/**
 * How a field gets its value: `adopted`, the act's drawn or typed picture (Signature, Initial), never a value;
 * `detail`, filled by Mohar from the signer's details or the date of the act (detailValue); the others are given
 * by the sender (a pre-assigned value) or the signer, as text ("true"/"false" for a checkbox, an option of the
 * field's for a dropdown or radio group).
 */
export type FieldValueKind = 'adopted' | 'detail' | 'text' | 'checkbox' | 'number' | 'date' | 'dropdown' | 'radio';

export interface FieldDescriptor {
  /** The API's name (the OpenAPI description of field_type, docs/api.md); an unlabelled PDF field's tooltip. */
  readonly label: string;
  /** The size in PDF points of a field the console's editor adds (the API always takes the placement given). */
  readonly width: number;
  readonly height: number;
  readonly value: FieldValueKind;
}

/** One descriptor per type: a type without one does not compile. */
export const FIELD_DESCRIPTORS: Readonly<Record<FieldType, FieldDescriptor>> = {
  1: { label: 'Signature', width: 180, height: 50, value: 'adopted' },
  2: { label: 'Initial', width: 60, height: 36, value: 'adopted' },
  3: { label: 'Date Signed', width: 120, height: 22, value: 'detail' },
  4: { label: 'Full Name', width: 180, height: 22, value: 'detail' },
  5: { label: 'First Name', width: 140, height: 22, value: 'detail' },
  6: { label: 'Last Name', width: 140, height: 22, value: 'detail' },
  7: { label: 'Email', width: 200, height: 22, value: 'detail' },
  8: { label: 'Text', width: 200, height: 22, value: 'text' },
  9: { label: 'Checkbox', width: 18, height: 18, value: 'checkbox' },
  10: { label: 'Number', width: 100, height: 22, value: 'number' },
  11: { label: 'Date', width: 110, height: 22, value: 'date' },
  12: { label: 'Dropdown', width: 160, height: 22, value: 'dropdown' },
  13: { label: 'Radio', width: 160, height: 22, value: 'radio' },
};

const typesWhoseValueIs = (...kinds: FieldValueKind[]): ReadonlySet<number> =>
  new Set(ALL_FIELD_TYPES.filter((type) => kinds.includes(FIELD_DESCRIPTORS[type].value)));

/** Signed (Signature) or drawn and typed once (Initials): done by the act's picture, never given a value. */
export const SIGNATURE_TYPES: ReadonlySet<number> = typesWhoseValueIs('adopted');

/** Filled by Mohar from the signer's details or the date of the act. */
export const DETAIL_FILLED_TYPES: ReadonlySet<number> = typesWhoseValueIs('detail');

/** Filled from the signer's details or the signing act itself: a pre-assigned value makes no sense. */
export const AUTO_FILLED_TYPES: ReadonlySet<number> = new Set([...SIGNATURE_TYPES, ...DETAIL_FILLED_TYPES]);

/** Chosen from the field's options. */
export const CHOICE_TYPES: ReadonlySet<number> = typesWhoseValueIs('dropdown', 'radio');

/** Why a given text value does not fit its field's type: see valueMismatch. */
export type ValueMismatch = 'checkbox' | 'number' | 'date';

/**
 * Why a value given for a field does not fit the field's type (null: it fits): a Checkbox takes "true" or
 * "false", a Number a finite number, a Date a calendar date as YYYY-MM-DD. Whether a type takes a value at all,
 * and a Dropdown's or Radio's options (the field's own, see optionsProblem), are checked beside it.
 */
export function valueMismatch(fieldType: number, value: string): ValueMismatch | null {
  switch (isFieldType(fieldType) ? FIELD_DESCRIPTORS[fieldType].value : undefined) {
    case 'checkbox':
      return value === 'true' || value === 'false' ? null : 'checkbox';
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? null : 'number';
    case 'date':
      return isCalendarDate(value) ? null : 'date';
    default:
      return null;
  }
}

/** YYYY-MM-DD naming a day of the calendar (2026-02-30 is refused). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Why a Dropdown's or Radio's options are unusable (null: usable): none, or not distinct non-empty strings. */
export function optionsProblem(options: readonly string[]): 'missing' | 'invalid' | null {
  if (options.length === 0) return 'missing';
  return new Set(options).size !== options.length || options.some((o) => o.trim() === '') ? 'invalid' : null;
}

/** The signer details an auto-filled field is filled from. */
export interface SignerDetails {
  readonly name: string;
  readonly email: string;
}

/**
 * What Mohar writes into a field filled from the signer's details (`today` as the act dates it); undefined for the
 * others.
 */
export function detailValue(fieldType: number, signer: SignerDetails, today: string): string | undefined {
  const parts = signer.name.trim().split(/\s+/);
  switch (fieldType) {
    case FIELD_TYPES.DATE_SIGNED:
      return today;
    case FIELD_TYPES.FULL_NAME:
      return signer.name;
    case FIELD_TYPES.FIRST_NAME:
      return parts[0] ?? '';
    case FIELD_TYPES.LAST_NAME:
      return parts.length > 1 ? parts[parts.length - 1]! : '';
    case FIELD_TYPES.EMAIL:
      return signer.email;
    default:
      return undefined;
  }
}

/** The initials of a name ("Asha Rao" → "AR"): the text an Initials field carries, and what the page offers to type. */
export function initialsOf(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase())
    .join('');
}

/** A cc gets a copy and a reviewer only confirms: neither act writes into the document, so neither holds fields. */
export function roleHoldsFields(role: string): boolean {
  return role !== 'cc' && role !== 'reviewer';
}

/**
 * Why a recipient may not hold a field type: their role holds no fields (cc, reviewer), only signers sign
 * (notSigner), or a USB DSC or Aadhaar eSign signer's one legal signature leaves no room for drawn initials.
 */
export type FieldRefusal = 'cc' | 'reviewer' | 'notSigner' | 'dscInitial' | 'aadhaarInitial';

/** Whether a recipient of this role and signature method may hold a field of this type (null: they may). */
export function fieldRefusal(fieldType: number, role: string, signatureMethod: string): FieldRefusal | null {
  if (role === 'cc') return 'cc';
  if (role === 'reviewer') return 'reviewer';
  if (role !== 'signer') return SIGNATURE_TYPES.has(fieldType) ? 'notSigner' : null;
  if (fieldType !== FIELD_TYPES.INITIAL) return null;
  if (signatureMethod === 'dsc') return 'dscInitial';
  if (signatureMethod === 'aadhaar') return 'aadhaarInitial';
  return null;
}
