import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  validateFieldLayout,
  type FieldInput,
  type LayoutDocument,
  type LayoutRecipient,
} from '../../../server/domain/envelopes/field-layout.js';

const signer: LayoutRecipient = { id: 'r-sign', role: 'signer', signature_method: 'electronic', name: 'Asha' };
const dsc: LayoutRecipient = { id: 'r-dsc', role: 'signer', signature_method: 'dsc', name: 'Ravi' };
const approver: LayoutRecipient = { id: 'r-appr', role: 'approver', signature_method: 'review', name: 'Meera' };
const cc: LayoutRecipient = { id: 'r-cc', role: 'cc', signature_method: 'review', name: 'Kiran' };
const recipients = [signer, dsc, approver, cc];

// Page 1 portrait A4, page 2 a landscape view (e.g. a rotated page), as displayed.
const document: LayoutDocument = {
  pages: [
    { width: 595, height: 842 },
    { width: 842, height: 595 },
  ],
  signatureFields: [
    { name: 'Approval.Sig1', signed: false, pageNumber: 2, rect: { x: 100, y: 50, width: 200, height: 60 } },
    { name: 'Old', signed: true, pageNumber: 1, rect: null },
  ],
};

const dscSignature: FieldInput = {
  recipient_id: 'r-dsc',
  field_type: 1,
  page_number: 1,
  x: 50,
  y: 700,
  width: 200,
  height: 60,
};

function errorsOf(fields: FieldInput[]) {
  const result = validateFieldLayout(fields, recipients, document);
  assert.equal(result.ok, false, 'expected the layout to be refused');
  return result.ok ? [] : result.errors;
}

describe('field layout', () => {
  test('accepts each placement style and normalises x1/y1/x2/y2', () => {
    const result = validateFieldLayout(
      [
        dscSignature,
        { recipient_id: 'r-sign', field_type: 1, page_number: 2, x1: 10, y1: 20, x2: 210, y2: 80 },
        {
          recipient_id: 'r-sign',
          field_type: 12,
          page_number: 1,
          x: 0,
          y: 0,
          width: 595,
          height: 842,
          options: ['a', 'b'],
          value: 'b',
        },
        { recipient_id: 'r-appr', field_type: 8, page_number: 2, x: 0, y: 0, width: 10, height: 10, value: 'note' },
      ],
      recipients,
      document,
    );
    assert.ok(result.ok);
    assert.deepEqual(result.fields[1]!.rect, { x: 10, y: 20, width: 200, height: 60 });
    assert.equal(result.fields[2]!.required, true);
  });

  test('a DSC signature can name an empty PDF signature field; page and rectangle come from its widget', () => {
    const result = validateFieldLayout(
      [{ recipient_id: 'r-dsc', field_type: 1, pdf_signature_field: 'Approval.Sig1' }],
      recipients,
      document,
    );
    assert.ok(result.ok);
    assert.equal(result.fields[0]!.page_number, 2);
    assert.deepEqual(result.fields[0]!.rect, { x: 100, y: 50, width: 200, height: 60 });
  });

  test('reports every bad field by index, with a reason', () => {
    const errors = errorsOf([
      dscSignature,
      { recipient_id: 'r-sign', field_type: 8, page_number: 3, x: 0, y: 0, width: 10, height: 10 },
      { recipient_id: 'r-sign', field_type: 8, page_number: 1, x: 500, y: 0, width: 100, height: 10 },
      { recipient_id: 'r-sign', field_type: 8, page_number: 1, x: 0, y: 0, width: 10 },
      {
        recipient_id: 'r-sign',
        field_type: 8,
        page_number: 1,
        x: 0,
        y: 0,
        width: 10,
        height: 10,
        x1: 0,
        y1: 0,
        x2: 1,
        y2: 1,
      },
      { recipient_id: 'nobody', field_type: 8, page_number: 1, x: 0, y: 0, width: 10, height: 10 },
      { recipient_id: 'r-sign', field_type: 14, page_number: 1, x: 0, y: 0, width: 10, height: 10 },
      { recipient_id: 'r-sign', field_type: 8, page_number: 1 },
    ]);
    const byIndex = new Map(errors.map((e) => [e.index, e.code]));
    assert.equal(byIndex.get(1), 'page_out_of_range');
    assert.equal(byIndex.get(2), 'outside_page');
    assert.equal(byIndex.get(3), 'placement_incomplete');
    assert.equal(byIndex.get(4), 'placement_ambiguous');
    assert.equal(byIndex.get(5), 'unknown_recipient');
    assert.equal(byIndex.get(6), 'unknown_field_type');
    assert.equal(byIndex.get(7), 'placement_missing');
    assert.ok(!byIndex.has(0));
    assert.ok(errors.every((e) => e.message.length > 10 && e.path === `/fields/${e.index}`));
  });

  test('bounds are the page as displayed: a landscape (rotated) page is wider than tall', () => {
    const onLandscape = {
      recipient_id: 'r-sign',
      field_type: 8,
      page_number: 2,
      x: 700,
      y: 500,
      width: 100,
      height: 50,
    };
    assert.ok(validateFieldLayout([dscSignature, onLandscape], recipients, document).ok);
    assert.equal(errorsOf([dscSignature, { ...onLandscape, page_number: 1, y: 800 }])[0]!.code, 'outside_page');
  });

  test('USB DSC: exactly one Signature field, no Initial', () => {
    assert.equal(errorsOf([])[0]!.code, 'dsc_signature_field_count');
    const two = errorsOf([dscSignature, { ...dscSignature, y: 100 }]);
    assert.deepEqual(
      two.map((e) => [e.index, e.code]),
      [[1, 'dsc_signature_field_count']],
    );
    assert.ok(
      errorsOf([dscSignature, { ...dscSignature, field_type: 2 }]).some(
        (e) => e.code === 'initial_not_available_for_dsc',
      ),
    );
  });

  test('Aadhaar eSign: no Initial (the ESP signs once); a Signature field is fine', () => {
    const aadhaar: LayoutRecipient = { id: 'r-aadhaar', role: 'signer', signature_method: 'aadhaar', name: 'Kavya' };
    const place = { recipient_id: 'r-aadhaar', page_number: 1, x: 300, y: 100, width: 120, height: 40 };
    const check = (fields: FieldInput[]) =>
      validateFieldLayout([dscSignature, ...fields], [...recipients, aadhaar], document);
    assert.ok(check([{ ...place, field_type: 1 }]).ok);
    const result = check([
      { ...place, field_type: 1 },
      { ...place, y: 200, field_type: 2 },
    ]);
    assert.ok(!result.ok && result.errors.some((e) => e.index === 2 && e.code === 'initial_not_available_for_aadhaar'));
  });

  test('pdf_signature_field must name an existing empty field, once, and only for a DSC signature', () => {
    assert.equal(
      errorsOf([{ recipient_id: 'r-dsc', field_type: 1, pdf_signature_field: 'Nope' }])[0]!.code,
      'signature_field_missing',
    );
    const signed = errorsOf([{ recipient_id: 'r-dsc', field_type: 1, pdf_signature_field: 'Old' }]);
    assert.equal(signed[0]!.code, 'signature_field_signed');
    assert.match(signed[0]!.message, /Approval\.Sig1/, 'lists the available empty fields');
    assert.ok(
      errorsOf([dscSignature, { recipient_id: 'r-sign', field_type: 1, pdf_signature_field: 'Approval.Sig1' }]).some(
        (e) => e.code === 'placement_not_allowed',
      ),
    );
    assert.ok(
      errorsOf([{ recipient_id: 'r-dsc', field_type: 1, pdf_signature_field: 'Approval.Sig1', page_number: 1 }]).some(
        (e) => e.code === 'page_mismatch',
      ),
    );
  });

  test('roles: cc and reviewers hold no fields, approvers do not sign (all role_mismatch)', () => {
    assert.ok(
      errorsOf([
        dscSignature,
        { recipient_id: 'r-cc', field_type: 8, page_number: 1, x: 0, y: 0, width: 1, height: 1 },
      ]).some((e) => e.code === 'role_mismatch'),
    );
    const reviewer: LayoutRecipient = { id: 'r-rev', role: 'reviewer', signature_method: 'review', name: 'Rita' };
    for (const type of [4, 8, 9, 11]) {
      const errors = validateFieldLayout(
        [{ recipient_id: 'r-rev', field_type: type, page_number: 1, x: 0, y: 0, width: 1, height: 1 }],
        [reviewer],
        { pages: [{ width: 100, height: 100 }], signatureFields: [] },
      );
      assert.deepEqual(errors.ok ? [] : errors.errors.map((e) => e.code), ['role_mismatch'], `reviewer, type ${type}`);
    }
    assert.ok(
      errorsOf([
        dscSignature,
        { recipient_id: 'r-appr', field_type: 1, page_number: 1, x: 0, y: 0, width: 1, height: 1 },
      ]).some((e) => e.code === 'role_mismatch'),
    );
  });

  test('values and options per field type', () => {
    const at = { recipient_id: 'r-sign', page_number: 1, x: 0, y: 0, width: 10, height: 10 };
    const cases: [Partial<FieldInput>, string][] = [
      [{ field_type: 12 }, 'options_missing'],
      [{ field_type: 13, options: ['a', 'a'] }, 'options_invalid'],
      [{ field_type: 12, options: ['a'], value: 'b' }, 'value_invalid'],
      [{ field_type: 8, options: ['a'] }, 'options_invalid'],
      [{ field_type: 9, value: 'yes' }, 'value_invalid'],
      [{ field_type: 10, value: 'ten' }, 'value_invalid'],
      [{ field_type: 11, value: '2026-02-30' }, 'value_invalid'],
      [{ field_type: 4, value: 'Someone Else' }, 'value_invalid'],
      [{ field_type: 8, width: 0 }, 'empty_rectangle'],
    ];
    for (const [field, code] of cases) {
      const errors = errorsOf([dscSignature, { ...at, ...field } as FieldInput]);
      assert.ok(
        errors.some((e) => e.index === 1 && e.code === code),
        `${JSON.stringify(field)} -> ${code}; got ${JSON.stringify(errors)}`,
      );
    }
    assert.ok(
      validateFieldLayout(
        [
          dscSignature,
          { ...at, field_type: 11, value: '2026-02-28' },
          { ...at, field_type: 9, value: 'true' },
          { ...at, field_type: 10, value: '-1.5' },
        ],
        recipients,
        document,
      ).ok,
    );
  });
});
