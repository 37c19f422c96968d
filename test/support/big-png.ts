/** Large PNGs made quickly (rows copied, not computed per pixel): hostile signature images for tests. */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

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
  for (let y = 0; y < height; y++) (y >= (2 * height) / 5 && y < (3 * height) / 5 ? band : clear).copy(raw, y * rowBytes);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
