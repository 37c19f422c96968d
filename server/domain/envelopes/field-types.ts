/** The interface's field types (Document field.field_type). */
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

/** Filled from the signer's details or the act itself: a pre-assigned value makes no sense. */
export const AUTO_FILLED_TYPES: ReadonlySet<number> = new Set([1, 2, 3, 4, 5, 6, 7]);
export const SIGNATURE_TYPES: ReadonlySet<number> = new Set([1, 2]);
export const CHOICE_TYPES: ReadonlySet<number> = new Set([12, 13]);
export const MAX_OPTIONS = 200;
