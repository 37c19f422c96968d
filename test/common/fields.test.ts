/**
 * common/fields.ts: the one table of field types and their shared rules. The API's numbers and names do not
 * move, pdf/ exports the same table (its AcroForm fields are made from it), and the role rules say
 * what the server's layout check and the console's editor both report.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ALL_FIELD_TYPES,
  AUTO_FILLED_TYPES,
  DETAIL_FILLED_TYPES,
  CHOICE_TYPES,
  detailValue,
  FIELD_DESCRIPTORS,
  FIELD_TYPES,
  fieldRefusal,
  initialsOf,
  isFieldType,
  optionsProblem,
  roleHoldsFields,
  SIGNATURE_TYPES,
  valueMismatch,
} from '../../common/fields.js';
import { MERGE_FIELD_TYPES } from '../../common/bulk-csv.js';
import { FIELD_TYPES as PDF_FIELD_TYPES } from '../../pdf/prepare/prepare-form.js';
import { FIELD_TYPE_DESCRIPTION } from '../../server/http/schemas/fields.js';

test('the API field_type numbers and names stay as published, and pdf/ exports the same table', () => {
  assert.deepEqual(FIELD_TYPES, {
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
  });
  assert.equal(PDF_FIELD_TYPES, FIELD_TYPES);
  assert.deepEqual(ALL_FIELD_TYPES, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  assert.equal(
    FIELD_TYPE_DESCRIPTION,
    '1 Signature; 2 Initial (not for USB DSC); 3 Date Signed; 4 Full Name; 5 First Name; 6 Last Name; 7 Email; 8 Text; 9 Checkbox; 10 Number; 11 Date; 12 Dropdown; 13 Radio',
  );
});

test('isFieldType accepts the integers 1 to 13 only', () => {
  assert.deepEqual([0, 1, 13, 14, 1.5, Number.NaN, -1].map(isFieldType), [
    false,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
});

test('auto-filled types: the signature and initials, and the five Mohar fills from the signer', () => {
  assert.deepEqual(
    [...SIGNATURE_TYPES].sort((a, b) => a - b),
    [1, 2],
  );
  assert.deepEqual(
    [...DETAIL_FILLED_TYPES].sort((a, b) => a - b),
    [3, 4, 5, 6, 7],
  );
  assert.deepEqual(
    [...AUTO_FILLED_TYPES].sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7],
  );
});

test('detailValue writes what the server writes; initialsOf takes the first letters', () => {
  const signer = { name: ' Asha  Kumari Rao ', email: 'asha@example.com' };
  assert.deepEqual(
    ALL_FIELD_TYPES.map((type) => detailValue(type, signer, '2026-11-28')),
    [
      undefined,
      undefined,
      '2026-11-28',
      ' Asha  Kumari Rao ',
      'Asha',
      'Rao',
      'asha@example.com',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ],
  );
  assert.equal(detailValue(FIELD_TYPES.LAST_NAME, { name: 'Asha', email: '' }, ''), '');
  assert.equal(initialsOf(' asha  rao '), 'AR');
});

test('which recipients may hold which type', () => {
  assert.deepEqual(['signer', 'approver', 'reviewer', 'cc'].map(roleHoldsFields), [true, true, false, false]);
  assert.equal(fieldRefusal(FIELD_TYPES.TEXT, 'cc', 'review'), 'cc');
  assert.equal(fieldRefusal(FIELD_TYPES.TEXT, 'reviewer', 'review'), 'reviewer');
  assert.equal(fieldRefusal(FIELD_TYPES.SIGNATURE, 'approver', 'review'), 'notSigner');
  assert.equal(fieldRefusal(FIELD_TYPES.INITIAL, 'approver', 'review'), 'notSigner');
  assert.equal(fieldRefusal(FIELD_TYPES.TEXT, 'approver', 'review'), null);
  assert.equal(fieldRefusal(FIELD_TYPES.INITIAL, 'signer', 'dsc'), 'dscInitial');
  assert.equal(fieldRefusal(FIELD_TYPES.INITIAL, 'signer', 'aadhaar'), 'aadhaarInitial');
  assert.equal(fieldRefusal(FIELD_TYPES.INITIAL, 'signer', 'electronic'), null);
  assert.equal(fieldRefusal(FIELD_TYPES.SIGNATURE, 'signer', 'dsc'), null);
});

test('a value fits its type by one rule for every layer: checkbox, number, calendar date', () => {
  const fits = (type: number, value: string) => valueMismatch(type, value);
  assert.deepEqual(
    ['true', 'false', 'yes', ''].map((v) => fits(FIELD_TYPES.CHECKBOX, v)),
    [null, null, 'checkbox', 'checkbox'],
  );
  assert.deepEqual(
    ['42', '-1.5', ' 7 ', 'abc', '  ', 'Infinity'].map((v) => fits(FIELD_TYPES.NUMBER, v)),
    [null, null, null, 'number', 'number', 'number'],
  );
  assert.deepEqual(
    ['2026-02-28', '2028-02-29', '2026-02-30', '2026-13-01', '28/02/2026'].map((v) => fits(FIELD_TYPES.DATE, v)),
    [null, null, 'date', 'date', 'date'],
  );
  assert.deepEqual(
    [FIELD_TYPES.TEXT, FIELD_TYPES.DROPDOWN, 99].map((type) => fits(type, 'anything')),
    [null, null, null],
  );
  assert.deepEqual([[], ['a', 'b'], ['a', 'a'], ['a', ' ']].map(optionsProblem), [
    'missing',
    null,
    'invalid',
    'invalid',
  ]);
});

test('the descriptors: what the editor drops, and the bulk CSV merge types are the types that take a value', () => {
  assert.deepEqual(FIELD_DESCRIPTORS[FIELD_TYPES.SIGNATURE], {
    label: 'Signature',
    width: 180,
    height: 50,
    value: 'adopted',
  });
  assert.deepEqual(FIELD_DESCRIPTORS[FIELD_TYPES.INITIAL], {
    label: 'Initial',
    width: 60,
    height: 36,
    value: 'adopted',
  });
  assert.deepEqual(FIELD_DESCRIPTORS[FIELD_TYPES.CHECKBOX], {
    label: 'Checkbox',
    width: 18,
    height: 18,
    value: 'checkbox',
  });
  assert.deepEqual(
    [...CHOICE_TYPES].sort((a, b) => a - b),
    [12, 13],
  );
  const takingValue = ALL_FIELD_TYPES.filter((type) => !AUTO_FILLED_TYPES.has(type));
  assert.deepEqual(
    Object.fromEntries(takingValue.map((type) => [type, FIELD_DESCRIPTORS[type].value])),
    MERGE_FIELD_TYPES,
  );
});
