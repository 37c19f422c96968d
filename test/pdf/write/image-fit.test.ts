import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { fitPng } from '../../../pdf/write/image-fit.js';
import { decodePng, imageXObject } from '../../../pdf/write/image.js';
import { bandPng } from '../../support/big-png.js';

describe('fitPng: signature images above a pixel budget are downscaled', () => {
  test('a 25-megapixel PNG becomes at most 4 megapixels, same aspect ratio, stroke and transparency kept', () => {
    const big = bandPng(5000, 5000);
    const fitted = fitPng(big, 4_000_000);
    assert.equal(fitted.downscaled, true);
    assert.ok(fitted.width * fitted.height <= 4_000_000, `${fitted.width} x ${fitted.height}`);
    assert.equal(fitted.width, fitted.height);
    assert.ok(fitted.width >= 1990, 'not shrunk more than needed');
    const image = decodePng(Buffer.from(fitted.bytes));
    assert.equal(image.width, fitted.width);
    const at = (x: number, y: number) => y * image.width + x;
    const middle = at(image.width >> 1, image.height >> 1);
    assert.deepEqual([...image.color.subarray(middle * 3, middle * 3 + 3)], [20, 30, 120]);
    assert.equal(image.alpha![middle], 255);
    assert.equal(image.alpha![at(5, 5)], 0, 'the background stays transparent');
    // The result embeds like any PNG.
    assert.equal(imageXObject(fitted.bytes).width, fitted.width);
  });

  test('the same input gives the same bytes (prepared documents stay content-addressed)', () => {
    const big = bandPng(3000, 2000);
    assert.deepEqual(Buffer.from(fitPng(big, 1_000_000).bytes), Buffer.from(fitPng(big, 1_000_000).bytes));
  });

  test('an image within the budget is returned as it is', () => {
    const small = bandPng(400, 150);
    const fitted = fitPng(small, 4_000_000);
    assert.equal(fitted.downscaled, false);
    assert.equal(fitted.bytes, small);
  });

  test('a wide image keeps its proportions', () => {
    const fitted = fitPng(bandPng(8000, 1000), 2_000_000);
    assert.ok(fitted.width * fitted.height <= 2_000_000);
    assert.ok(Math.abs(fitted.width / fitted.height - 8) < 0.02, `${fitted.width} x ${fitted.height}`);
  });

  test('beyond the hard 25-megapixel decoding cap it is refused, not decoded', () => {
    assert.throws(
      () => fitPng(bandPng(5001, 5000), 4_000_000),
      (e) => isMoharError(e, 'image_invalid') && /5001 x 5000/.test(e.message),
    );
  });
});
