/**
 * Mohar's own revisions are judged before storing: a revision that changes more than its act may is an
 * internal error (a plain Error, HTTP 500), never a MoharError an API client could take for its own fault.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { PdfReader } from '../../../pdf/document.js';
import { PdfRef } from '../../../pdf/objects.js';
import { getPages } from '../../../pdf/pages.js';
import { fillForm } from '../../../pdf/prepare/fill-form.js';
import { prepareForm } from '../../../pdf/prepare/prepare-form.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream } from '../../../pdf/write/serialize.js';
import { assertOwnRevision } from '../../../server/domain/workflow/revision-guard.js';
import { makePdf } from '../../support/pdf-fixtures.js';

const form = () =>
  prepareForm(makePdf({ pages: [{ text: 'Pay 1000 rupees' }] }), [
    { type: 8, page: 1, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r1', id: 'pan', name: 'pan' },
    { type: 8, page: 1, rect: { x: 50, y: 300, width: 200, height: 20 }, recipientId: 'r2', id: 'city', name: 'city' },
  ]).bytes;

describe('revision guard for the revisions Mohar appends', () => {
  test("the act's own fields pass; another recipient's field is an internal error", () => {
    const prior = form();
    const filled = fillForm(prior, { pan: 'ABCDE1234F', city: 'Pune' });
    assert.doesNotThrow(() =>
      assertOwnRevision('prepared', prior, fillForm(prior, { pan: 'ABCDE1234F' }), { fillableFields: ['pan'] }),
    );
    assert.throws(
      () => assertOwnRevision('prepared', prior, filled, { fillableFields: ['pan'] }),
      (e: Error) => !isMoharError(e) && /internal error: the prepared revision .*field "city"/.test(e.message),
    );
  });

  test('page content written by a bug is refused even when the policy allows everything an act can', () => {
    const prior = form();
    const reader = PdfReader.open(prior);
    const update = new IncrementalUpdate(reader);
    const content = getPages(reader)[0]!.dict.get('Contents');
    assert.ok(content instanceof PdfRef);
    update.set(content, makeStream(dict({}), Buffer.from('BT /F1 12 Tf 72 700 Td (Pay 1 rupee) Tj ET')));
    const next = update.write().bytes;
    assert.throws(
      () =>
        assertOwnRevision('electronic signature', prior, next, {
          signingField: 'x',
          fillableFields: ['pan', 'city'],
          allowLtv: true,
        }),
      /page 1 content stream \(object \d+\) rewritten/,
    );
  });
});
