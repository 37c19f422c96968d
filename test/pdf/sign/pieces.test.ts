/**
 * signPdf's result in two pieces (pdf/sign/sign-pdf.ts, issue 30): the input itself, untouched, then the new
 * revision; the whole file is joined only when asked for, and is what pdfsig and the ByteRange digest say it is.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { byteRangeData, byteRangeDigest } from '../../../pdf/sign/prepare.js';
import { signPdf, timestampPdf } from '../../../pdf/sign/sign-pdf.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { makeTestSigner, pdfsig, signingToolsAvailable } from '../../support/openssl-signer.js';

const TOOLS = signingToolsAvailable();
const skip = !TOOLS && 'qpdf, pdfsig, pdftoppm or openssl not installed';
const signer = TOOLS ? makeTestSigner() : undefined;
after(() => signer?.cleanup());

const OPTIONS = { field: { invisible: true as const }, signingTime: new Date('2026-11-29T10:00:00Z') };

describe('signPdf in pieces', () => {
  test(
    'the first piece is the input itself, unchanged; the file joined from both is signed and valid',
    { skip },
    async () => {
      const input = makePdf({ pages: 2 });
      const before = createHash('sha256').update(input).digest('hex');
      const signed = await signPdf(input, OPTIONS, signer!.callback());
      assert.equal(signed.pieces[0], input, 'the input object, not a copy');
      assert.equal(createHash('sha256').update(input).digest('hex'), before, 'the input was not written to');
      const whole = signed.bytes;
      assert.equal(whole.length, input.length + signed.pieces[1].length);
      assert.ok(whole.subarray(0, input.length).equals(input) && whole.subarray(input.length).equals(signed.pieces[1]));
      assert.equal(signed.bytes, whole, 'joined once, then kept');
      assert.equal(
        signed.byteRange[2] + signed.byteRange[3],
        whole.length,
        'the ByteRange reaches the end of the file',
      );
      assert.ok(Buffer.from(byteRangeDigest(whole, signed.byteRange)).equals(Buffer.from(signed.digest)));
      const report = pdfsig(whole).signatures;
      assert.equal(report.length, 1);
      assert.equal(report[0]!.validation, 'Signature is Valid.');
      assert.equal(report[0]!.totalDocument, true);
    },
  );

  test('a structured clone (a worker answer) and a spread carry the whole file', { skip }, async () => {
    const input = makePdf({ pages: 1 });
    const signed = await signPdf(input, OPTIONS, signer!.callback());
    const cloned = structuredClone(signed) as { bytes: Uint8Array };
    assert.ok(Buffer.from(cloned.bytes).equals(signed.bytes));
    assert.ok({ ...signed }.bytes.equals(signed.bytes));
  });

  test('a document timestamp is kept in pieces the same way', { skip }, async () => {
    const input = (await signPdf(makePdf({ pages: 1 }), OPTIONS, signer!.callback())).bytes;
    const stamped = await timestampPdf(input, async (_digest, prepared) =>
      signer!.timestampToken(byteRangeData(prepared)),
    );
    assert.equal(stamped.pieces[0], input);
    assert.ok(stamped.bytes.subarray(0, input.length).equals(input));
    assert.ok(Buffer.from(byteRangeDigest(stamped.bytes, stamped.byteRange)).equals(Buffer.from(stamped.digest)));
  });
});
