/**
 * Shrinks a PNG to a pixel budget: a drawn or uploaded signature image needs a few hundred thousand
 * pixels, not 25 million, and every pixel kept is memory and Flate work in every later revision.
 *
 * The image is decoded (image.ts, which refuses anything above its hard 25-megapixel cap), reduced by
 * area averaging (each output pixel is the mean of the input pixels it covers, weighted by overlap: no
 * aliasing for the thin strokes of a signature) and written again as an 8-bit PNG (filter 0, one IDAT).
 * Colour and alpha are averaged separately (not premultiplied); for signature strokes on a transparent
 * background this keeps the stroke colour. The result depends only on the input bytes.
 */
import { crc32, deflateSync } from 'node:zlib';
import { decodePng, type DecodedPng } from './image.js';

export interface FittedImage {
  /** The bytes to embed: the input itself when it was within the budget or not a PNG. */
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly downscaled: boolean;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Returns the PNG as it is when it has at most `maxPixels` pixels, else a smaller PNG with the same aspect ratio. */
export function fitPng(bytes: Uint8Array, maxPixels: number): FittedImage {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = pngSize(b);
  if (header && header.width * header.height <= maxPixels) return { bytes, ...header, downscaled: false };
  const decoded = decodePng(b);
  if (decoded.width * decoded.height <= maxPixels) {
    return { bytes, width: decoded.width, height: decoded.height, downscaled: false };
  }
  const factor = Math.sqrt(maxPixels / (decoded.width * decoded.height));
  const width = Math.max(1, Math.floor(decoded.width * factor));
  const height = Math.max(1, Math.floor(decoded.height * factor));
  const color = areaAverage(decoded.color, decoded, decoded.colorChannels, width, height);
  const alpha = decoded.alpha ? areaAverage(decoded.alpha, decoded, 1, width, height) : undefined;
  return { bytes: encodePng(width, height, decoded.colorChannels, color, alpha), width, height, downscaled: true };
}

/** Width and height from IHDR, without decoding; undefined when the bytes are not a PNG with an IHDR first. */
function pngSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE) || b.toString('latin1', 12, 16) !== 'IHDR') {
    return undefined;
  }
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** For each output position, the input positions it covers and how much of each (sums to `scale`). */
function taps(
  inSize: number,
  outSize: number,
): { start: Int32Array; count: Int32Array; weights: Float32Array; width: number } {
  const scale = inSize / outSize;
  const width = Math.ceil(scale) + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float32Array(outSize * width);
  for (let o = 0; o < outSize; o++) {
    const from = o * scale;
    const to = Math.min(inSize, (o + 1) * scale);
    start[o] = Math.floor(from);
    let n = 0;
    for (let i = Math.floor(from); i < to && n < width; i++, n++) {
      weights[o * width + n] = (Math.min(to, i + 1) - Math.max(from, i)) / scale;
    }
    count[o] = n;
  }
  return { start, count, weights, width };
}

/**
 * Box-filter resampling with fractional coverage. Separable: rows first (into floats), then columns, so the
 * cost is O(input pixels) rather than O(input pixels x scale); the coverage of each position is computed once.
 */
function areaAverage(
  samples: Buffer,
  size: Pick<DecodedPng, 'width' | 'height'>,
  channels: number,
  width: number,
  height: number,
): Buffer {
  const horizontal = new Float32Array(width * size.height * channels);
  const tx = taps(size.width, width);
  for (let y = 0; y < size.height; y++) {
    const row = y * size.width * channels;
    const outRow = y * width * channels;
    for (let x = 0; x < width; x++) {
      const first = row + tx.start[x]! * channels;
      const w = x * tx.width;
      for (let c = 0; c < channels; c++) {
        let sum = 0;
        for (let k = 0, n = tx.count[x]!; k < n; k++) sum += samples[first + k * channels + c]! * tx.weights[w + k]!;
        horizontal[outRow + x * channels + c] = sum;
      }
    }
  }
  const out = Buffer.alloc(width * height * channels);
  const ty = taps(size.height, height);
  const stride = width * channels;
  for (let y = 0; y < height; y++) {
    const first = ty.start[y]! * stride;
    const w = y * ty.width;
    const n = ty.count[y]!;
    for (let i = 0; i < stride; i++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += horizontal[first + k * stride + i]! * ty.weights[w + k]!;
      out[y * stride + i] = Math.min(255, Math.round(sum));
    }
  }
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit PNG: gray (0), RGB (2), gray+alpha (4) or RGBA (6); every row with filter 0. */
function encodePng(
  width: number,
  height: number,
  colorChannels: 1 | 3,
  color: Buffer,
  alpha: Buffer | undefined,
): Buffer {
  const channels = colorChannels + (alpha ? 1 : 0);
  const colorType = colorChannels === 1 ? (alpha ? 4 : 0) : alpha ? 6 : 2;
  const raw = Buffer.alloc((width * channels + 1) * height);
  for (let y = 0; y < height; y++) {
    let p = y * (width * channels + 1) + 1;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      for (let c = 0; c < colorChannels; c++) raw[p++] = color[i * colorChannels + c]!;
      if (alpha) raw[p++] = alpha[i]!;
    }
  }
  return pngFile(width, height, colorType, raw);
}

/** An 8-bit PNG file around `raw`: its rows, each led by its filter byte, in PNG colour type `colorType`. */
export function pngFile(width: number, height: number, colorType: 0 | 2 | 4 | 6, raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
