/**
 * What the editor knows about each field type: its default size, which parties may hold it and whether it takes
 * a pre-assigned value or options (the server's own rules, common/fields.ts), and the cheap layout rules it can
 * check while placing (the server checks them all again on save: server/domain/envelopes/field-layout.ts; these
 * mirror its messages' intent).
 */
import {
  AUTO_FILLED_TYPES,
  CHOICE_TYPES,
  FIELD_DESCRIPTORS,
  FIELD_TYPES,
  fieldRefusal,
  isFieldType,
  optionsProblem,
  roleHoldsFields,
  valueMismatch,
  type FieldRefusal,
} from '../../../../common/fields';
import type { EditorField, EditorParty } from './types';

export { ALL_FIELD_TYPES, type FieldType } from '../../../../common/fields';

/** Width and height in PDF points of a field the editor adds (common/fields.ts). */
export function defaultSize(type: number): { width: number; height: number } {
  if (!isFieldType(type)) return { width: 120, height: 22 };
  const { width, height } = FIELD_DESCRIPTORS[type];
  return { width, height };
}

/** Filled from the signer's details or the act: no pre-assigned value, no "editable". */
export const takesValue = (type: number): boolean => !AUTO_FILLED_TYPES.has(type);
export const takesOptions = (type: number): boolean => CHOICE_TYPES.has(type);
export const isDscSigner = (party: EditorParty | undefined): boolean =>
  party?.role === 'signer' && party.signatureMethod === 'dsc';
/** cc recipients get a copy and reviewers only confirm: neither holds fields (the server's role_mismatch). */
export const holdsFields = (party: EditorParty): boolean => roleHoldsFields(party.role);

export type Unavailable = FieldRefusal | null;

/** Why a party may not hold a type (null: it may), by the server's own rule. */
export function unavailableFor(type: number, party: EditorParty | undefined): Unavailable {
  if (!party) return null;
  return fieldRefusal(type, party.role, party.signatureMethod);
}

/** The local checks' problems (strings/compose.ts has their words under compose.fields.problem.*). */
export type LocalProblem =
  | 'cc'
  | 'reviewer'
  | 'notSigner'
  | 'dscInitial'
  | 'aadhaarInitial'
  | 'dscSecondSignature'
  | 'optionsMissing'
  | 'optionsDuplicate'
  | 'valueNotOption'
  | 'number'
  | 'date'
  | 'unknownParty';

function valueProblem(field: EditorField): LocalProblem | null {
  const options = field.options ?? [];
  if (takesOptions(field.field_type)) {
    const unusable = optionsProblem(options);
    if (unusable === 'missing') return 'optionsMissing';
    if (unusable === 'invalid') return 'optionsDuplicate';
    if (field.value && !options.includes(field.value)) return 'valueNotOption';
  }
  if (!field.value) return null;
  // A Checkbox's value comes from the panel's own "true"/"false" choice: only Number and Date can be mistyped.
  const mismatch = valueMismatch(field.field_type, field.value);
  return mismatch === 'number' || mismatch === 'date' ? mismatch : null;
}

/** The rules cheap enough to check on every change, by field id. */
export function localProblems(
  fields: readonly EditorField[],
  parties: readonly EditorParty[],
): Map<string, LocalProblem> {
  const byKey = new Map(parties.map((p) => [p.key, p]));
  const problems = new Map<string, LocalProblem>();
  const dscSignatures = new Set<string>();
  for (const field of fields) {
    const party = byKey.get(field.party);
    if (!party) {
      problems.set(field.id, 'unknownParty');
      continue;
    }
    const unavailable = unavailableFor(field.field_type, party);
    if (unavailable) {
      problems.set(field.id, unavailable);
      continue;
    }
    if (isDscSigner(party) && field.field_type === FIELD_TYPES.SIGNATURE) {
      // USB DSC: exactly one Signature field per signer; the second and later ones are the wrong ones.
      if (dscSignatures.has(party.key)) problems.set(field.id, 'dscSecondSignature');
      dscSignatures.add(party.key);
      continue;
    }
    const problem = valueProblem(field);
    if (problem) problems.set(field.id, problem);
  }
  return problems;
}

/** Eight colours distinct for colour-blind eyes too (Okabe–Ito plus two), by party index. */
const COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#7f3c8d', '#3b3b3b'];
export const partyColour = (index: number): string =>
  COLOURS[((index % COLOURS.length) + COLOURS.length) % COLOURS.length]!;
