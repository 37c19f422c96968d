/**
 * The interface's field types (the API's field_type numbers) and the rules the server and the pages share about
 * them: which Mohar fills from the signer's details or the act, what it writes there, which are signed rather
 * than filled, which take options, and which recipients may hold which type. The server enforces these rules
 * (server/domain/envelopes/field-layout.ts, server/domain/workflow/field-values.ts); the signing page previews
 * them and the console's field editor checks them while placing. A leaf: it imports nothing of Mohar.
 * (pdf/ keeps its own FIELD_TYPES for the AcroForm fields; test/common/fields.test.ts keeps the two equal.)
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

/** How the API documents each type (the OpenAPI description of field_type, docs/api.md). */
export const FIELD_TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  1: 'Signature',
  2: 'Initial',
  3: 'Date Signed',
  4: 'Full Name',
  5: 'First Name',
  6: 'Last Name',
  7: 'Email',
  8: 'Text',
  9: 'Checkbox',
  10: 'Number',
  11: 'Date',
  12: 'Dropdown',
  13: 'Radio',
};

export function isFieldType(value: number): value is FieldType {
  return (ALL_FIELD_TYPES as readonly number[]).includes(value);
}

/** Signed (Signature) or drawn and typed once (Initials): done by the act's picture, never given a value. */
export const SIGNATURE_TYPES: ReadonlySet<number> = new Set([FIELD_TYPES.SIGNATURE, FIELD_TYPES.INITIAL]);

/** Filled by Mohar from the signer's details or the date of the act. */
export const DETAIL_FILLED_TYPES: ReadonlySet<number> = new Set([
  FIELD_TYPES.DATE_SIGNED,
  FIELD_TYPES.FULL_NAME,
  FIELD_TYPES.FIRST_NAME,
  FIELD_TYPES.LAST_NAME,
  FIELD_TYPES.EMAIL,
]);

/** Filled from the signer's details or the signing act itself: a pre-assigned value makes no sense. */
export const AUTO_FILLED_TYPES: ReadonlySet<number> = new Set([...SIGNATURE_TYPES, ...DETAIL_FILLED_TYPES]);

/** Chosen from the field's options. */
export const CHOICE_TYPES: ReadonlySet<number> = new Set([FIELD_TYPES.DROPDOWN, FIELD_TYPES.RADIO]);

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
