/** Large PNGs made quickly (rows copied, not computed per pixel): hostile signature images for tests. */
import { pngFile } from '../../pdf/write/image-fit.js';

/**
 * An 8-bit RGBA PNG of `width` x `height`: transparent, with an opaque dark-blue band (a "stroke") across
 * the middle fifth of the height. Highly compressible: 25 megapixels take about 100 KB.
 */
export function bandPng(width: number, height: number): Buffer {
  const rowBytes = width * 4 + 1;
  const clear = Buffer.alloc(rowBytes);
  const band = Buffer.alloc(rowBytes);
  for (let x = 0; x < width; x++) band.set([20, 30, 120, 255], 1 + x * 4);
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    (y >= (2 * height) / 5 && y < (3 * height) / 5 ? band : clear).copy(raw, y * rowBytes);
  }
  return pngFile(width, height, 6, raw);
}
