/**
 * Stream filters (ISO 32000-1 7.4) needed to read the file structure: FlateDecode (with PNG/TIFF
 * predictors, as used by xref streams), LZWDecode, ASCIIHexDecode, ASCII85Decode, RunLengthDecode.
 * Every decoder is told the most bytes it may produce (output-limit.ts), so a "zip bomb" stops at
 * the limit instead of filling memory. Image-only filters are refused, but only when someone asks to decode them.
 */
import { inflateRawSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import { invalidPdf, tooComplex } from './limits.js';
import { lzwDecode } from './lzw.js';
import { LimitedBuffer, type OutputLimit } from './output-limit.js';
import { applyPredictor } from './predictors.js';
import { PdfArray, PdfDict, PdfName, type PdfObject } from './objects.js';

export interface FilterSpec {
  readonly name: string;
  /** The filter's /DecodeParms entry, already resolved. */
  readonly parms: PdfDict | undefined;
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

function asciiHexDecode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array((data.length >>> 1) + 1);
  let n = 0;
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const v =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
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
  const out = new LimitedBuffer(limit);
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
  const out = new LimitedBuffer(limit);
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

export { applyPredictor } from './predictors.js';
export type { OutputLimit } from './output-limit.js';
