/**
 * pdf/write/damaged.ts (issue 26 point 10): a damaged file whose last trailer has /Prev as an array (qpdf's
 * test file bad11.pdf has one) is read by rebuilding its xref. Unsigned, it is repaired by the new revision;
 * signed, it is refused, since the repaired file's earlier revisions are out of reach of strict validators.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { PdfReader, appendDss, checkSignable, signPades } from '../../../pdf/index.js';
import { PdfDict, PdfRef } from '../../../pdf/objects.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { textString } from '../../../pdf/write/text.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import {
  complaints,
  makeTestKey,
  withArrayPrev,
  pyhankoComplaints,
  pyhankoSkip,
  type TestKey,
} from '../../support/earlier-signatures.js';

const refusal = (error: unknown): boolean => {
  assert.ok(isMoharError(error), String(error));
  assert.equal(error.code, 'pdf_unsupported');
  assert.match(error.message, /damaged/);
  assert.match(error.message, /"Signature1"/);
  assert.match(error.message, /qpdf in\.pdf out\.pdf/);
  return true;
};

describe('a damaged file whose trailer /Prev is an array', () => {
  let key: TestKey;
  let signedDamaged: Buffer;
  const sign = (pdf: Uint8Array) =>
    signPades(pdf, key.signer, { level: 'B-B', field: { invisible: true }, signingTime: new Date() });

  before(async () => {
    key = await makeTestKey();
    signedDamaged = withArrayPrev((await sign(makePdf({ pages: 2 }))).bytes);
    assert.equal(PdfReader.open(signedDamaged).xref.reconstructed, true, 'the fixture is read by rebuilding its xref');
  });
  after(() => key?.pki.cleanup());

  test('signed: signing is refused with pdf_unsupported, naming the signature and how to repair', async () => {
    await assert.rejects(sign(signedDamaged), refusal);
    assert.throws(() => checkSignable(signedDamaged), refusal, 'before any PIN is asked');
  });

  test('signed: every other act that appends a revision is refused too (DSS, any update)', () => {
    assert.throws(() => appendDss(signedDamaged, { certs: [key.signer.certificate] }), refusal);
    const reader = PdfReader.open(signedDamaged);
    const update = new IncrementalUpdate(reader);
    update.editDict(reader.trailer.get('Root') as PdfRef).set('Lang', textString('en'));
    assert.throws(() => update.write(), refusal);
  });

  test('unsigned: repaired by a complete section without /Prev, and the signature is valid', async () => {
    const damaged = withArrayPrev(makePdf({ pages: 2 }));
    const signed = (await sign(damaged)).bytes;
    const reader = PdfReader.open(signed);
    assert.equal(reader.xref.reconstructed, false, 'whole again');
    assert.equal(reader.trailer.has('Prev'), false);
    assert.ok(reader.trailer.get('Info') instanceof PdfRef, 'the trailer keeps /Info');
    assert.ok(reader.catalog instanceof PdfDict);
    assert.deepEqual(complaints(signed, 1), []);
  });

  test('unsigned: pyHanko accepts the signature on the repaired file', { skip: pyhankoSkip() }, async () => {
    const signed = (await sign(withArrayPrev(makePdf({ pages: 2 })))).bytes;
    assert.deepEqual(pyhankoComplaints(signed, 1), []);
  });
});
