/** PNG and TIFF predictors (ISO 32000-1 7.4.4.4), as used by xref streams and images. */
import type { PdfDict } from './objects.js';

/** PNG (10..15) and TIFF (2) predictors; other values mean "no predictor". */
export function applyPredictor(data: Uint8Array, parms: PdfDict | undefined): Uint8Array {
  const predictor = parms?.getNumber('Predictor') ?? 1;
  if (predictor < 2) return data;
  const colors = clampInt(parms?.getNumber('Colors'), 1, 1, 32);
  const bpc = clampInt(parms?.getNumber('BitsPerComponent'), 8, 1, 16);
  const columns = clampInt(parms?.getNumber('Columns'), 1, 1, 1 << 24);
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowBytes = Math.ceil((colors * bpc * columns) / 8);
  if (predictor === 2) return tiffPredictor(data, rowBytes, colors, bpc);
  if (predictor < 10) return data;
  const rows = Math.ceil(data.length / (rowBytes + 1));
  const out = new Uint8Array(rows * rowBytes);
  let prev = new Uint8Array(rowBytes);
  let o = 0;
  for (let r = 0, i = 0; r < rows; r++) {
    const type = data[i++]!;
    const row = out.subarray(o, o + rowBytes);
    row.set(data.subarray(i, i + rowBytes));
    i += rowBytes;
    for (let x = 0; x < rowBytes; x++) {
      const left = x >= bpp ? row[x - bpp]! : 0;
      const up = prev[x]!;
      const upLeft = x >= bpp ? prev[x - bpp]! : 0;
      if (type === 1) row[x] = row[x]! + left;
      else if (type === 2) row[x] = row[x]! + up;
      else if (type === 3) row[x] = row[x]! + ((left + up) >>> 1);
      else if (type === 4) row[x] = row[x]! + paeth(left, up, upLeft);
    }
    prev = row;
    o += rowBytes;
  }
  // A short final row (truncated data) only contributes the bytes it had.
  const lastRow = data.length % (rowBytes + 1);
  return lastRow === 0 ? out : out.subarray(0, out.length - rowBytes + Math.max(0, lastRow - 1));
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function tiffPredictor(data: Uint8Array, rowBytes: number, colors: number, bpc: number): Uint8Array {
  const out = Uint8Array.from(data);
  for (let start = 0; start < out.length; start += rowBytes) {
    const end = Math.min(out.length, start + rowBytes);
    if (bpc === 8) {
      for (let x = start + colors; x < end; x++) out[x] = out[x]! + out[x - colors]!;
    } else if (bpc === 16) {
      for (let x = start + 2 * colors; x + 1 < end; x += 2) {
        const v = ((out[x]! << 8) | out[x + 1]!) + ((out[x - 2 * colors]! << 8) | out[x - 2 * colors + 1]!);
        out[x] = (v >>> 8) & 0xff;
        out[x + 1] = v & 0xff;
      }
    } else {
      // 1, 2 or 4 bits per component: add component-wise along the row
      const mask = (1 << bpc) - 1;
      const count = Math.floor(((end - start) * 8) / bpc);
      const get = (k: number): number => (out[start + ((k * bpc) >>> 3)]! >>> (8 - bpc - ((k * bpc) & 7))) & mask;
      for (let k = colors; k < count; k++) {
        const v = (get(k) + get(k - colors)) & mask;
        const byte = start + ((k * bpc) >>> 3);
        const shift = 8 - bpc - ((k * bpc) & 7);
        out[byte] = (out[byte]! & ~(mask << shift)) | (v << shift);
      }
    }
  }
  return out;
}

function clampInt(v: number | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined || !Number.isInteger(v)) return dflt;
  return Math.min(max, Math.max(min, v));
}
