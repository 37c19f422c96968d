/**
 * Stream filters (ISO 32000-1 7.4) needed to read the file structure: FlateDecode (with PNG/TIFF
 * predictors, as used by xref streams), LZWDecode, ASCIIHexDecode, ASCII85Decode, RunLengthDecode.
 * Every decoder is told the most bytes it may produce, so a "zip bomb" stops at the limit instead
 * of filling memory. Image-only filters are refused, but only when someone asks to decode them.
 */
import { inflateRawSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import { invalidPdf, tooComplex } from './limits.js';
import { PdfArray, PdfDict, PdfName, type PdfObject } from './objects.js';

export interface FilterSpec {
  readonly name: string;
  /** The filter's /DecodeParms entry, already resolved. */
  readonly parms: PdfDict | undefined;
}

/** Thrown (as pdf_too_complex) when a decoder would exceed `maxBytes`; `what` names the limit. */
export interface OutputLimit {
  readonly maxBytes: number;
  readonly what: string;
}

/** The /Filter and /DecodeParms of a stream dictionary as a list (either may be an array or single). */
export function filterSpecs(dict: PdfDict, resolve: (obj: PdfObject) => PdfObject): FilterSpec[] {
  const filter = resolve(dict.get('Filter'));
  const parms = resolve(dict.get('DecodeParms'));
  const names = filter instanceof PdfArray ? filter.items.map(resolve) : [filter];
  const out: FilterSpec[] = [];
  names.forEach((name, i) => {
    if (!(name instanceof PdfName)) return;
    const p = parms instanceof PdfArray ? resolve(parms.get(i)) : parms;
    out.push({ name: name.name, parms: p instanceof PdfDict ? p : undefined });
  });
  return out;
}

const ABBREVIATIONS: Record<string, string> = {
  AHx: 'ASCIIHexDecode',
  A85: 'ASCII85Decode',
  LZW: 'LZWDecode',
  Fl: 'FlateDecode',
  RL: 'RunLengthDecode',
};

export function decodeFilters(data: Uint8Array, filters: readonly FilterSpec[], limit: OutputLimit): Uint8Array {
  let out = data;
  for (const { name, parms } of filters) {
    switch (ABBREVIATIONS[name] ?? name) {
      case 'FlateDecode':
        out = applyPredictor(inflate(out, limit), parms);
        break;
      case 'LZWDecode':
        out = applyPredictor(lzwDecode(out, (parms?.getNumber('EarlyChange') ?? 1) !== 0, limit), parms);
        break;
      case 'ASCIIHexDecode':
        out = asciiHexDecode(out);
        break;
      case 'ASCII85Decode':
        out = ascii85Decode(out, limit);
        break;
      case 'RunLengthDecode':
        out = runLengthDecode(out, limit);
        break;
      case 'Crypt':
        break; // only the Identity crypt filter can occur in an unencrypted file
      default:
        throw invalidPdf(`stream filter /${name} cannot be decoded here`);
    }
    if (out.length > limit.maxBytes) throw tooComplex(limit.what);
  }
  return out;
}

const SYNC = { finishFlush: zlibConstants.Z_SYNC_FLUSH };

/**
 * zlib inflate that behaves like PDF viewers: a truncated stream yields what it holds, a bad
 * checksum or missing header is ignored, and a corrupt stream yields the data before the damage.
 */
export function inflate(data: Uint8Array, limit: OutputLimit): Uint8Array {
  const opts = { ...SYNC, maxOutputLength: Math.max(1, limit.maxBytes) };
  const attempt = (fn: () => Uint8Array): Uint8Array | undefined => {
    try {
      return fn();
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooComplex(limit.what);
      return undefined;
    }
  };
  const ok =
    attempt(() => inflateSync(data, opts)) ??
    attempt(() => inflateRawSync(data.subarray(2), opts)) ?? // bad header or checksum
    attempt(() => inflateRawSync(data, opts)); // raw deflate without zlib header
  if (ok) return ok;
  // Corrupt in the middle: keep the longest prefix that still inflates (bounded work).
  if (data.length > 4 * 1024 * 1024) throw invalidPdf('a compressed stream is corrupt');
  let lo = 0;
  let hi = data.length;
  let best: Uint8Array = new Uint8Array(0);
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    const got = attempt(() => inflateSync(data.subarray(0, mid), opts));
    if (got) {
      lo = mid;
      best = got;
    } else hi = mid;
  }
  return best;
}

function lzwDecode(data: Uint8Array, earlyChange: boolean, limit: OutputLimit): Uint8Array {
  const out = new Growable(limit);
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    suffix[i] = i;
    lengths[i] = 1;
  }
  let next = 258;
  let width = 9;
  let prev = -1;
  let bitBuf = 0;
  let bits = 0;
  const entry = new Uint8Array(4096);
  const emit = (code: number): number => {
    const len = lengths[code]!;
    for (let i = len - 1, c = code; i >= 0; i--, c = prefix[c]!) entry[i] = suffix[c]!;
    out.push(entry, len);
    return entry[0]!;
  };
  for (const byte of data) {
    bitBuf = (bitBuf << 8) | byte;
    bits += 8;
    while (bits >= width) {
      const code = (bitBuf >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      if (code === 256) {
        next = 258;
        width = 9;
        prev = -1;
        continue;
      }
      if (code === 257) return out.result();
      let first: number;
      if (code < next) first = emit(code);
      else if (code === next && prev >= 0) {
        // KwKwK case: the code being defined is prev + first byte of prev
        const len = lengths[prev]!;
        for (let i = len - 1, c = prev; i >= 0; i--, c = prefix[c]!) entry[i] = suffix[c]!;
        entry[len] = entry[0]!;
        out.push(entry, len + 1);
        first = entry[0]!;
      } else return out.result(); // corrupt: stop like viewers do
      if (prev >= 0 && next < 4096) {
        prefix[next] = prev;
        suffix[next] = first;
        lengths[next] = lengths[prev]! + 1;
        next++;
      }
      prev = code;
      const threshold = next + (earlyChange ? 1 : 0);
      width = threshold >= 2048 ? 12 : threshold >= 1024 ? 11 : threshold >= 512 ? 10 : 9;
    }
  }
  return out.result();
}

function asciiHexDecode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array((data.length >>> 1) + 1);
  let n = 0;
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (v < 0) continue;
    if (high < 0) high = v;
    else {
      out[n++] = high * 16 + v;
      high = -1;
    }
  }
  if (high >= 0) out[n++] = high * 16;
  return out.subarray(0, n);
}

function ascii85Decode(data: Uint8Array, limit: OutputLimit): Uint8Array {
  const out = new Growable(limit);
  const group = new Uint8Array(4);
  let value = 0;
  let count = 0;
  for (const c of data) {
    if (c === 0x7e /* ~ */) break;
    if (c === 0x7a /* z */ && count === 0) {
      out.push(new Uint8Array(4), 4);
      continue;
    }
    if (c < 0x21 || c > 0x75) continue; // whitespace and junk
    value = value * 85 + (c - 0x21);
    if (++count === 5) {
      for (let i = 3; i >= 0; i--, value = Math.floor(value / 256)) group[i] = value % 256;
      out.push(group, 4);
      value = 0;
      count = 0;
    }
  }
  if (count > 1) {
    for (let i = count; i < 5; i++) value = value * 85 + 84; // pad with "u"
    for (let i = 3; i >= 0; i--, value = Math.floor(value / 256)) group[i] = value % 256;
    out.push(group, count - 1);
  }
  return out.result();
}

function runLengthDecode(data: Uint8Array, limit: OutputLimit): Uint8Array {
  const out = new Growable(limit);
  let i = 0;
  while (i < data.length) {
    const n = data[i++]!;
    if (n === 128) break;
    if (n < 128) {
      out.push(data.subarray(i, i + n + 1), Math.min(n + 1, data.length - i));
      i += n + 1;
    } else if (i < data.length) {
      out.push(new Uint8Array(257 - n).fill(data[i++]!), 257 - n);
    }
  }
  return out.result();
}

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

/** A byte buffer that grows by doubling and refuses to pass the output limit. */
class Growable {
  private buf = new Uint8Array(1024);
  private len = 0;
  constructor(private readonly limit: OutputLimit) {}
  push(bytes: Uint8Array, count: number): void {
    const need = this.len + count;
    if (need > this.limit.maxBytes) throw tooComplex(this.limit.what);
    if (need > this.buf.length) {
      const bigger = new Uint8Array(Math.min(Math.max(need, this.buf.length * 2), this.limit.maxBytes));
      bigger.set(this.buf.subarray(0, this.len));
      this.buf = bigger;
    }
    this.buf.set(bytes.subarray(0, count), this.len);
    this.len = need;
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}
