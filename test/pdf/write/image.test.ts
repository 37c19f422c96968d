import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { PdfName } from '../../../pdf/objects.js';
import { imageXObject } from '../../../pdf/write/image.js';
import { isMoharError } from '../../../common/errors.js';
import { makePdf, hasTool } from '../../support/pdf-fixtures.js';

/** A page 40 x 20 pt: white, with a black box over its left half. */
const HALF_BLACK = makePdf({ pages: [{ mediaBox: [0, 0, 40, 20], content: '0 g 0 0 20 20 re f' }] });

/** Renders HALF_BLACK with one of ghostscript's PNG devices (palette, 1-bit, gray, 16-bit, alpha). */
function gsPng(device: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-png-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), HALF_BLACK);
    execFileSync(
      'gs',
      [
        '-q',
        '-dNOPAUSE',
        '-dBATCH',
        '-dSAFER',
        `-sDEVICE=${device}`,
        '-r72',
        `-sOutputFile=${join(dir, 'out.png')}`,
        join(dir, 'in.pdf'),
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(join(dir, 'out.png'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]); // CRC is not checked by the decoder
}

/** An 8-bit grey PNG, optionally Adam7-interlaced, from a pixel function. */
function grayPng(width: number, height: number, px: (x: number, y: number) => number, interlace: boolean): Buffer {
  const rows: Buffer[] = [];
  const passes = interlace
    ? [
        [0, 0, 8, 8],
        [4, 0, 8, 8],
        [0, 4, 4, 8],
        [2, 0, 4, 4],
        [0, 2, 2, 4],
        [1, 0, 2, 2],
        [0, 1, 1, 2],
      ]
    : [[0, 0, 1, 1]];
  for (const [x0, y0, dx, dy] of passes as [number, number, number, number][]) {
    for (let y = y0; y < height; y += dy) {
      const row: number[] = [0];
      for (let x = x0; x < width; x += dx) row.push(px(x, y));
      if (row.length > 1) rows.push(Buffer.from(row));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  ihdr[12] = interlace ? 1 : 0;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('PNG decoding', () => {
  for (const device of ['png16', 'pngmono', 'pnggray', 'png256', 'png16m', 'png48', 'pngalpha']) {
    test(
      `ghostscript ${device}: left half dark, right half light`,
      { skip: !hasTool('gs') && 'ghostscript not installed' },
      () => {
        const img = imageXObject(gsPng(device));
        assert.equal(img.width, 40);
        assert.equal(img.height, 20);
        const cs = (img.image.dict.get('ColorSpace') as PdfName).name;
        const channels = cs === 'DeviceGray' ? 1 : 3;
        const data = inflateSync(img.image.raw());
        assert.equal(data.length, 40 * 20 * channels);
        const at = (x: number, y: number) => data[(y * 40 + x) * channels]!;
        assert.ok(at(5, 10) < 64, `${device}: dark at left`);
        assert.ok(at(35, 10) > 192, `${device}: light at right`);
        if (device === 'pngalpha') {
          // ghostscript leaves the unpainted background transparent: the alpha becomes an /SMask
          const alpha = inflateSync(img.smask!.raw());
          assert.equal(alpha[10 * 40 + 5], 255);
          assert.equal(alpha[10 * 40 + 35], 0);
        } else assert.equal(img.smask, undefined, 'no alpha channel, no SMask');
      },
    );
  }

  test('Adam7 interlacing gives the same pixels as the plain encoding', () => {
    const px = (x: number, y: number) => (x * 7 + y * 13) % 256;
    const plain = imageXObject(grayPng(13, 11, px, false));
    const interlaced = imageXObject(grayPng(13, 11, px, true));
    assert.deepEqual(inflateSync(interlaced.image.raw()), inflateSync(plain.image.raw()));
    assert.equal(inflateSync(plain.image.raw())[3 * 13 + 5], px(5, 3));
  });

  test('broken and unsupported images are refused with image_invalid', () => {
    assert.throws(
      () => imageXObject(Buffer.from('GIF89a....')),
      (e) => isMoharError(e, 'image_invalid'),
    );
    const png = grayPng(4, 4, () => 0, false);
    assert.throws(
      () => imageXObject(png.subarray(0, 40)),
      (e) => isMoharError(e, 'image_invalid'),
    );
    assert.throws(
      () => imageXObject(Buffer.from([0xff, 0xd8, 0xff, 0xd9])),
      (e) => isMoharError(e, 'image_invalid'),
    );
  });
});
