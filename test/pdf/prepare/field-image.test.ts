/**
 * applyFieldImage (issue 16 point 3): one picture as the appearance of several text fields (a signer's
 * initials), in the same revision as their signature; the image object is written once and shared; /V keeps the
 * text. A signature field or an unknown name is refused before anything is written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { moharFieldName, PdfReader, prepareForm, type FormFieldLayout } from '../../../pdf/index.js';
import { PdfDict, PdfRef, PdfString } from '../../../pdf/objects.js';
import { FIELD_TYPES } from '../../../pdf/prepare/prepare-form.js';
import { prepareSignature } from '../../../pdf/sign/prepare.js';
import { readFormTree } from '../../../pdf/write/form.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { makePng } from '../../support/png.js';

const R = 'c1a4f0e2-0000-4000-8000-000000000001';
const LAYOUT: FormFieldLayout[] = [
  { type: FIELD_TYPES.SIGNATURE, page: 1, rect: { x: 50, y: 50, width: 200, height: 50 }, recipientId: R, id: 'sig' },
  { type: FIELD_TYPES.INITIAL, page: 1, rect: { x: 300, y: 50, width: 60, height: 30 }, recipientId: R, id: 'i1' },
  { type: FIELD_TYPES.INITIAL, page: 2, rect: { x: 300, y: 500, width: 60, height: 30 }, recipientId: R, id: 'i2' },
];
const PICTURE = makePng(90, 40, (x, y) =>
  Math.abs(y - 20) < 2 || Math.abs(x - 45) < 2 ? [0, 0, 90, 255] : [0, 0, 0, 0],
);

test('one picture in both Initials fields, one shared image object, /V kept as text, one revision', () => {
  const form = prepareForm(makePdf({ pages: 2 }), LAYOUT).bytes;
  const [i1, i2] = [moharFieldName(R, 'i1'), moharFieldName(R, 'i2')];
  const prepared = prepareSignature(form, {
    field: { name: moharFieldName(R, 'sig') },
    signingTime: new Date('2026-11-25T10:00:00Z'),
    imageFields: { image: PICTURE, value: 'AR', fields: [i1, i2] },
  });
  assert.ok(prepared.bytes.subarray(0, form.length).equals(Buffer.from(form)), 'an incremental revision');
  assert.equal(PdfReader.open(prepared.bytes).revisions.length, PdfReader.open(form).revisions.length + 1);
  assert.ok(qpdfCheck(prepared.bytes).ok);
  const update = new IncrementalUpdate(PdfReader.open(prepared.bytes));
  const images = new Set<string>();
  for (const field of readFormTree(update).fields.filter((f) => f.name === i1 || f.name === i2)) {
    const value = update.resolve(field.dict.get('V'));
    assert.ok(value instanceof PdfString && value.toText() === 'AR');
    const ap = update.resolve(field.widgets[0]!.dict.get('AP')) as PdfDict;
    const normal = update.resolve(ap.get('N')) as unknown as { dict: PdfDict };
    const xobjects = update.resolve(
      (update.resolve(normal.dict.get('Resources')) as PdfDict).get('XObject'),
    ) as PdfDict;
    const ref = xobjects.get('Img0');
    assert.ok(ref instanceof PdfRef);
    images.add(ref.key);
  }
  assert.equal(images.size, 1, 'both appearances draw the same image object');
});

test('a signature field or an unknown name cannot show a picture', () => {
  const form = prepareForm(makePdf({ pages: 2 }), LAYOUT).bytes;
  for (const name of [moharFieldName(R, 'sig'), 'nope']) {
    assert.throws(
      () =>
        prepareSignature(form, {
          field: { invisible: true },
          signingTime: new Date(),
          imageFields: { image: PICTURE, value: 'AR', fields: [name] },
        }),
      (error) => isMoharError(error) && ['form_value_invalid', 'form_field_not_found'].includes(error.code),
    );
  }
});
