/** Groups of the interface's field types (FIELD_TYPES itself lives in pdf/, which turns them into AcroForm fields). */
import { FIELD_TYPES } from '../../../pdf/index.js';

export { FIELD_TYPES };

/** Filled from the signer's details or the signing act itself: a pre-assigned value makes no sense. */
export const AUTO_FILLED_TYPES: ReadonlySet<number> = new Set([
  FIELD_TYPES.SIGNATURE,
  FIELD_TYPES.INITIAL,
  FIELD_TYPES.DATE_SIGNED,
  FIELD_TYPES.FULL_NAME,
  FIELD_TYPES.FIRST_NAME,
  FIELD_TYPES.LAST_NAME,
  FIELD_TYPES.EMAIL,
]);
export const SIGNATURE_TYPES: ReadonlySet<number> = new Set([FIELD_TYPES.SIGNATURE, FIELD_TYPES.INITIAL]);
export const CHOICE_TYPES: ReadonlySet<number> = new Set([FIELD_TYPES.DROPDOWN, FIELD_TYPES.RADIO]);
export const MAX_OPTIONS = 200;
