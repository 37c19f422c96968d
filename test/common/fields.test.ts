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
  detailValue,
  FIELD_TYPES,
  fieldRefusal,
  initialsOf,
  isFieldType,
  roleHoldsFields,
  SIGNATURE_TYPES,
} from '../../common/fields.js';
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
