/**
 * Images for appearances (a handwritten-signature picture, a company stamp):
 *
 * - JPEG is embedded as it is with /DCTDecode (size and components read from the SOF marker;
 *   Adobe CMYK JPEGs get an inverted /Decode).
 * - PNG is decoded here (node:zlib + the PNG row filters, Adam7 interlacing included), any bit
 *   depth and colour type; the colour channels are re-compressed with Flate and the alpha channel
 *   (colour types 4 and 6, or a tRNS chunk) becomes a separate /SMask image.
 * - image-fit.ts shrinks a PNG above a pixel budget before it gets here (untrusted signature images).
 */
import { inflateSync } from 'node:zlib';
import { MoharError } from '../../common/errors.js';
import { PdfArray, type PdfStream } from '../objects.js';
import { dict, makeStream, name } from './serialize.js';

export interface ImageXObject {
  readonly image: PdfStream;
  /** Alpha channel as a /DeviceGray image: add it as an object and set /SMask on `image`. */
  readonly smask?: PdfStream;
  readonly width: number;
  readonly height: number;
}

/** Largest pixel count accepted (a signature image does not need more). */
const MAX_PIXELS = 25_000_000;

function badImage(message: string): MoharError {
  return new MoharError('image_invalid', `The appearance image cannot be used: ${message}.`);
}

export function imageXObject(data: Uint8Array): ImageXObject {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length > 3 && b[0] === 0xff && b[1] === 0xd8) return jpeg(b);
  if (b.length > 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return png(b);
  }
  throw badImage('only PNG and JPEG images are supported');
}

// ---------------------------------------------------------------- JPEG

function jpeg(b: Buffer): ImageXObject {
  let p = 2;
  let adobe = false;
  while (p + 4 <= b.length) {
    if (b[p] !== 0xff) throw badImage('broken JPEG marker');
    const marker = b[p + 1]!;
    if (marker === 0xff) {
      p++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    const len = b.readUInt16BE(p + 2);
    if (marker === 0xee && b.toString('latin1', p + 4, p + 9) === 'Adobe') adobe = true;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = b.readUInt16BE(p + 5);
      const width = b.readUInt16BE(p + 7);
      const components = b[p + 9]!;
      if (width === 0 || height === 0) throw badImage('JPEG without a size');
      const colorSpace =
        components === 1 ? 'DeviceGray' : components === 3 ? 'DeviceRGB' : components === 4 ? 'DeviceCMYK' : undefined;
      if (!colorSpace) throw badImage(`JPEG with ${components} components`);
      const d = dict({
        Type: name('XObject'),
        Subtype: name('Image'),
        Width: width,
        Height: height,
        ColorSpace: name(colorSpace),
        BitsPerComponent: b[p + 4]!,
        Filter: name('DCTDecode'),
      });
      if (components === 4 && adobe) d.set('Decode', new PdfArray([1, 0, 1, 0, 1, 0, 1, 0]));
      return { image: makeStream(d, b), width, height };
    }
    if (marker === 0xda) break; // start of scan before any frame header
    p += 2 + len;
  }
  throw badImage('JPEG without a frame header');
}

// ---------------------------------------------------------------- PNG

interface PngHeader {
  width: number;
  height: number;
  depth: number;
  colorType: number;
  interlace: number;
}

/** A PNG decoded to 8-bit samples: 1 (gray) or 3 (RGB) colour channels, and alpha when it has any. */
export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  readonly colorChannels: 1 | 3;
  readonly color: Buffer;
  readonly alpha: Buffer | undefined;
}

function png(b: Buffer): ImageXObject {
  const { width, height, colorChannels, color, alpha } = decodePng(b);
  const image = makeStream(
    dict({
      Type: name('XObject'),
      Subtype: name('Image'),
      Width: width,
      Height: height,
      ColorSpace: name(colorChannels === 1 ? 'DeviceGray' : 'DeviceRGB'),
      BitsPerComponent: 8,
    }),
    color,
    { compress: true },
  );
  if (!alpha) return { image, width, height };
  const smask = makeStream(
    dict({
      Type: name('XObject'),
      Subtype: name('Image'),
      Width: width,
      Height: height,
      ColorSpace: name('DeviceGray'),
      BitsPerComponent: 8,
    }),
    alpha,
    { compress: true },
  );
  return { image, smask, width, height };
}

export function decodePng(b: Buffer): DecodedPng {
  let p = 8;
  let header: PngHeader | undefined;
  let palette: Buffer | undefined;
  let trns: Buffer | undefined;
  const idat: Buffer[] = [];
  while (p + 8 <= b.length) {
    const len = b.readUInt32BE(p);
    const type = b.toString('latin1', p + 4, p + 8);
    const body = b.subarray(p + 8, p + 8 + len);
    if (body.length < len) throw badImage('truncated PNG');
    if (type === 'IHDR') {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8]!,
        colorType: body[9]!,
        interlace: body[12]!,
      };
    } else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') trns = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    p += 12 + len;
  }
  if (!header || idat.length === 0) throw badImage('PNG without image data');
  const { width, height, depth, colorType } = header;
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  if (!channels || ![1, 2, 4, 8, 16].includes(depth)) {
    throw badImage(`unsupported PNG colour type ${colorType} / depth ${depth}`);
  }
  if (width === 0 || height === 0 || width * height > MAX_PIXELS) throw badImage(`PNG of ${width} x ${height} pixels`);
  if (colorType === 3 && !palette) throw badImage('palette PNG without a palette');
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: (width * channels * 2 + 1) * height * 2 + 1024 });
  } catch (err) {
    throw new MoharError('image_invalid', 'The appearance image cannot be used: broken PNG data.', { cause: err });
  }
  // Samples as 8-bit values, row-major, `channels` per pixel.
  const scale = colorType !== 3; // palette indexes are not scaled to 8 bits
  const samples =
    header.interlace === 1
      ? deinterlace(raw, header, channels, scale)
      : unfilterPass(raw, 0, width, height, depth, channels, scale).samples;

  const colorChannels = colorType === 0 || colorType === 4 ? 1 : 3;
  const pixels = width * height;
  const color = Buffer.alloc(pixels * colorChannels);
  let alpha: Buffer | undefined;
  if (colorType === 4 || colorType === 6 || trns) alpha = Buffer.alloc(pixels, 255);
  // One loop per colour type (not a branch per pixel): this runs for every pixel.
  if (colorType === 3) {
    for (let i = 0; i < pixels; i++) {
      const idx = samples[i]!;
      color[i * 3] = palette![idx * 3] ?? 0;
      color[i * 3 + 1] = palette![idx * 3 + 1] ?? 0;
      color[i * 3 + 2] = palette![idx * 3 + 2] ?? 0;
      if (alpha && trns) alpha[i] = idx < trns.length ? trns[idx]! : 255;
    }
  } else if (colorType === 0 || colorType === 4) {
    const key = trns && trns.length >= 2 ? scaleKey(trns.readUInt16BE(0), depth) : -1;
    for (let i = 0; i < pixels; i++) {
      color[i] = samples[i * channels]!;
      if (colorType === 4) alpha![i] = samples[i * 2 + 1]!;
      else if (alpha && samples[i]! === key) alpha[i] = 0;
    }
  } else if (colorType === 6) {
    for (let i = 0; i < pixels; i++) {
      color[i * 3] = samples[i * 4]!;
      color[i * 3 + 1] = samples[i * 4 + 1]!;
      color[i * 3 + 2] = samples[i * 4 + 2]!;
      alpha![i] = samples[i * 4 + 3]!;
    }
  } else {
    samples.copy(color, 0, 0, pixels * 3);
    if (alpha && trns && trns.length >= 6) {
      const [r, g, bl] = [trns.readUInt16BE(0), trns.readUInt16BE(2), trns.readUInt16BE(4)].map((v) =>
        scaleKey(v, depth),
      );
      for (let i = 0; i < pixels; i++) {
        if (color[i * 3] === r && color[i * 3 + 1] === g && color[i * 3 + 2] === bl) alpha[i] = 0;
      }
    }
  }
  const opaque = !alpha || isAll255(alpha);
  return { width, height, colorChannels, color, alpha: opaque ? undefined : alpha };
}

/** Every byte is 255 (a plain loop: Buffer.every calls a function per byte). */
function isAll255(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 255) return false;
  return true;
}

/** A tRNS key sample (16-bit field) scaled like the image samples to 8 bits. */
function scaleKey(v: number, depth: number): number {
  if (depth === 16) return v >> 8;
  if (depth === 8) return v & 0xff;
  return Math.round(((v & ((1 << depth) - 1)) * 255) / ((1 << depth) - 1));
}

/** Undoes the row filters of one (sub)image and expands samples to 8 bits (palette indexes stay indexes). */
function unfilterPass(
  raw: Buffer,
  offset: number,
  width: number,
  height: number,
  depth: number,
  channels: number,
  scale: boolean,
): { samples: Buffer; consumed: number } {
  const bitsPerPixel = depth * channels;
  const rowBytes = Math.ceil((width * bitsPerPixel) / 8);
  const bpp = Math.max(1, Math.ceil(bitsPerPixel / 8));
  const out = Buffer.alloc(width * height * channels);
  let prev = Buffer.alloc(rowBytes);
  let p = offset;
  for (let y = 0; y < height; y++) {
    if (p + 1 + rowBytes > raw.length) throw badImage('truncated PNG data');
    const filter = raw[p]!;
    const row = Buffer.from(raw.subarray(p + 1, p + 1 + rowBytes));
    p += 1 + rowBytes;
    unfilterRow(filter, row, prev, bpp);
    prev = row;
    const base = y * width * channels;
    if (depth === 8) row.copy(out, base, 0, width * channels);
    else if (depth === 16) for (let i = 0; i < width * channels; i++) out[base + i] = row[i * 2]!;
    else {
      const max = (1 << depth) - 1;
      for (let i = 0; i < width * channels; i++) {
        const bit = i * depth;
        const v = (row[bit >> 3]! >> (8 - depth - (bit & 7))) & max;
        out[base + i] = scale ? Math.round((v * 255) / max) : v;
      }
    }
  }
  return { samples: out, consumed: p - offset };
}

/**
 * Undoes one row's filter in place. One loop per filter type (not a switch per byte): a 25-megapixel
 * image is 100 million bytes, and this is most of the decoding time.
 */
function unfilterRow(filter: number, row: Buffer, prev: Buffer, bpp: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) row[i] = (row[i]! + row[i - bpp]!) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = (row[i]! + prev[i]!) & 0xff;
      return;
    case 3:
      for (let i = 0; i < bpp && i < n; i++) row[i] = (row[i]! + (prev[i]! >> 1)) & 0xff;
      for (let i = bpp; i < n; i++) row[i] = (row[i]! + ((row[i - bpp]! + prev[i]!) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < bpp && i < n; i++) row[i] = (row[i]! + prev[i]!) & 0xff;
      for (let i = bpp; i < n; i++) {
        const a = row[i - bpp]!;
        const up = prev[i]!;
        const c = prev[i - bpp]!;
        const pa = Math.abs(up - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + up - 2 * c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? up : c)) & 0xff;
      }
      return;
    default:
      throw badImage(`unknown PNG filter ${filter}`);
  }
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

function deinterlace(raw: Buffer, h: PngHeader, channels: number, scale: boolean): Buffer {
  const out = Buffer.alloc(h.width * h.height * channels);
  let p = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((h.width - x0) / dx);
    const hh = Math.ceil((h.height - y0) / dy);
    if (w <= 0 || hh <= 0) continue;
    const pass = unfilterPass(raw, p, w, hh, h.depth, channels, scale);
    p += pass.consumed;
    for (let y = 0; y < hh; y++) {
      for (let x = 0; x < w; x++) {
        const src = (y * w + x) * channels;
        const dst = ((y0 + y * dy) * h.width + x0 + x * dx) * channels;
        pass.samples.copy(out, dst, src, src + channels);
      }
    }
  }
  return out;
}
