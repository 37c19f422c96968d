/**
 * pdf/sign/self-check.ts (issue 26 point 11): signPades checks its own output; a signature that would break
 * one the input carried fails with pdf_write_failed and returns nothing. The crafted input is real: a page
 * whose /Annots holds an annotation dictionary written inline (a direct object where references belong),
 * which the writer keeps and Mohar's allow-list then counts against every earlier signature.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { PdfReader, signPades, verifyPdf } from '../../../pdf/index.js';
import { PdfRef } from '../../../pdf/objects.js';
import { textString } from '../../../pdf/write/text.js';
import { cloneDict, serializeObject } from '../../../pdf/write/serialize.js';
import { assertEarlierSignaturesKept } from '../../../pdf/sign/self-check.js';
import { appendUpdate, makePdf } from '../../support/pdf-fixtures.js';
import { complaints, inlineAnnotation, makeTestKey, type TestKey } from '../../support/earlier-signatures.js';

const breaks =
  (field: string, change: RegExp) =>
  (error: unknown): boolean => {
    assert.ok(isMoharError(error), String(error));
    assert.equal(error.code, 'pdf_write_failed');
    assert.match(error.message, new RegExp(`earlier signature "${field}"`));
    assert.match(error.message, change);
    assert.match(error.message, /Nothing was written/);
    assert.deepEqual(error.extra?.signatures, [field]);
    return true;
  };

describe('signPades checks that every earlier signature survives its output', () => {
  let key: TestKey;
  const sign = (pdf: Uint8Array, level: 'B-B' = 'B-B') =>
    signPades(pdf, key.signer, { level, field: { invisible: true }, signingTime: new Date() });
  before(async () => {
    key = await makeTestKey();
  });
  after(() => key?.pki.cleanup());

  test('a second signature that would break the first fails with pdf_write_failed naming it and the change', async () => {
    const once = (await sign(inlineAnnotation())).bytes;
    assert.deepEqual(complaints(once, 1), [], 'the first signature itself is fine');
    await assert.rejects(sign(once), breaks('Signature1', /page 1 \/Annots: holds a direct object/));
  });

  test('signing a field an earlier signature locked (FieldMDP) fails naming that signature and the lock', async () => {
    const locking = await signPades(makePdf(), key.signer, {
      level: 'B-B',
      field: { invisible: true },
      signingTime: new Date(),
      lock: { action: 'Include', fields: ['Approval'] },
    });
    const signApproval = signPades(locking.bytes, key.signer, {
      level: 'B-B',
      field: { invisible: true, name: 'Approval' },
      signingTime: new Date(),
    });
    await assert.rejects(signApproval, breaks('Signature1', /"Approval" is locked by this signature/));
    const elsewhere = await signPades(locking.bytes, key.signer, {
      level: 'B-B',
      field: { invisible: true, name: 'Witness' },
      signingTime: new Date(),
    });
    assert.deepEqual(complaints(elsewhere.bytes, 2), [], 'a field the lock does not name can still be signed');
  });

  test('an output whose new section does not chain to the input is refused', async () => {
    const once = (await sign(makePdf())).bytes;
    // A revision whose /Prev skips the signed revision's section and points at the original one.
    const firstXref = Number(/startxref\s+(\d+)/.exec(once.toString('latin1'))![1]);
    const skipping = appendUpdate(once, [{ num: 90, body: '<< /Note (x) >>' }]);
    const rewired = Buffer.from(
      skipping.toString('latin1').replace(/\/Prev \d+(?![\s\S]*\/Prev)/, `/Prev ${firstXref}`),
      'latin1',
    );
    assert.notDeepEqual(rewired, skipping);
    assert.throws(() => assertEarlierSignaturesKept(once, rewired), breaks('Signature1', /does not chain/));
  });

  test('changed earlier bytes are refused', async () => {
    const once = (await sign(makePdf())).bytes;
    const changed = Buffer.concat([once, Buffer.from('\n')]);
    changed[20] = 0x41;
    assert.throws(
      () => assertEarlierSignaturesKept(once, changed),
      (e: unknown) => isMoharError(e) && e.code === 'pdf_write_failed',
    );
  });

  test('a problem the earlier signature already had does not block signing, and is still reported', async () => {
    const once = (await sign(makePdf())).bytes;
    const reader = PdfReader.open(once);
    const root = reader.trailer.get('Root');
    assert.ok(root instanceof PdfRef);
    // A revision after the signature that adds /Lang to the catalog: `other` for Signature1 already in the input.
    const catalog = cloneDict(reader.catalog);
    catalog.set('Lang', textString('en'));
    const tampered = appendUpdate(once, [{ num: root.num, body: serializeObject(catalog).toString('latin1') }]);
    assert.equal(verifyPdf(tampered).signatures[0]!.valid, false);
    const twice = (await sign(tampered)).bytes;
    const report = verifyPdf(twice).signatures;
    assert.equal(report.length, 2);
    assert.equal(report[0]!.valid, false, 'still reported by verify');
    assert.equal(report[1]!.valid, true);
  });

  test('an unsigned input is not verified at all, a clean earlier signature passes', async () => {
    const twice = (await sign((await sign(makePdf({ pages: 2 }))).bytes)).bytes;
    assert.deepEqual(complaints(twice, 2), []);
  });
});
