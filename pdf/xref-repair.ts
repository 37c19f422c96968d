/**
 * Repair for files whose cross-reference data is missing or wrong: scan the bytes for
 * "N G obj" headers and "trailer" dictionaries, as real viewers do (pdf.js, mupdf, qpdf).
 * Stream bodies are skipped so binary data is not mistaken for object headers.
 * Also finds the revisions of a file: each "startxref N %%EOF" that ends an update section.
 */
import { isBoundary, isDelimiter, isWhitespace } from './lexer.js';
import { isFatal, tooComplex, type PdfLimits } from './limits.js';
import { PdfDict, PdfStream, asDict, isName } from './objects.js';
import { Parser, type ParserOptions } from './parser.js';
import type { XrefKind } from './xref.js';

export interface ScannedObject {
  readonly num: number;
  readonly gen: number;
  /** Offset of the "N G obj" header. */
  readonly offset: number;
}

export interface ScannedTrailer {
  readonly offset: number;
  readonly dict: PdfDict;
  readonly kind: XrefKind;
}

export interface RepairScan {
  /** Every object header found, in file order (later ones are newer versions). */
  readonly objects: readonly ScannedObject[];
  /** Trailer dictionaries and xref-stream dictionaries, in file order. */
  readonly trailers: readonly ScannedTrailer[];
  /** Objects that are object streams (/Type /ObjStm), in file order. */
  readonly objectStreams: readonly ScannedObject[];
  /** Objects whose dictionary says /Type /Catalog, in file order. */
  readonly catalogs: readonly ScannedObject[];
}

export function scanObjects(bytes: Uint8Array, parser: ParserOptions, limits: PdfLimits): RepairScan {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const objects: ScannedObject[] = [];
  const trailers: ScannedTrailer[] = [];
  // Next occurrence of each keyword; -1 = not searched yet, EXHAUSTED = none left (keeps the scan O(n)).
  const EXHAUSTED = -2;
  const next = { obj: -1, trailer: -1, stream: -1 };
  let pos = 0;
  for (;;) {
    for (const k of ['obj', 'trailer', 'stream'] as const) {
      if (next[k] !== EXHAUSTED && next[k] < pos) {
        const found = buf.indexOf(k, pos);
        next[k] = found < 0 ? EXHAUSTED : found;
      }
    }
    const candidates = [next.obj, next.trailer, next.stream].filter((n) => n >= 0);
    if (candidates.length === 0) break;
    const at = Math.min(...candidates);
    if (at === next.stream) {
      pos = at + 6;
      const before = buf[at - 1];
      const after = buf[at + 6];
      if ((isWhitespace(before) || before === 0x3e) && (after === 0x0d || after === 0x0a)) {
        const end = buf.indexOf('endstream', pos);
        if (end >= 0) pos = end + 9;
      }
    } else if (at === next.obj) {
      pos = at + 3;
      const header = objectHeaderBefore(buf, at);
      if (header && isBoundary(buf[at + 3])) {
        if (objects.length >= limits.maxObjects) throw tooComplex(`more than ${limits.maxObjects} objects`);
        objects.push(header);
      }
    } else {
      pos = at + 7;
      if (!isBoundary(buf[at - 1]) || !isBoundary(buf[at + 7])) continue;
      try {
        const dict = new Parser(bytes, pos, parser).parseObject();
        if (dict instanceof PdfDict) {
          trailers.push({ offset: at, dict, kind: dict.has('XRefStm') ? 'hybrid' : 'table' });
        }
      } catch (err) {
        if (isFatal(err)) throw err;
      }
    }
  }

  // Typed objects are located by their "/Type" value text, then confirmed by parsing the object.
  const objectStreams: ScannedObject[] = [];
  const catalogs: ScannedObject[] = [];
  const typed = (name: string, fn: (obj: ScannedObject, dict: PdfDict, isStream: boolean) => void): void => {
    const seen = new Set<ScannedObject>();
    for (let i = buf.indexOf(name); i >= 0; i = buf.indexOf(name, i + 1)) {
      if (!isBoundary(buf[i + name.length])) continue;
      const obj = enclosing(objects, i);
      if (!obj || seen.has(obj)) continue;
      seen.add(obj);
      try {
        const value = new Parser(bytes, obj.offset, parser).parseIndirectObject().value;
        const dict = asDict(value);
        if (dict && isName(dict.get('Type'), name.slice(1))) fn(obj, dict, value instanceof PdfStream);
      } catch (err) {
        if (isFatal(err)) throw err;
      }
    }
  };
  typed('/XRef', (obj, dict, isStream) => {
    if (isStream) trailers.push({ offset: obj.offset, dict, kind: 'stream' });
  });
  typed('/ObjStm', (obj, _dict, isStream) => {
    if (isStream) objectStreams.push(obj);
  });
  typed('/Catalog', (obj) => catalogs.push(obj));
  trailers.sort((a, b) => a.offset - b.offset);
  objectStreams.sort((a, b) => a.offset - b.offset);
  catalogs.sort((a, b) => a.offset - b.offset);
  return { objects, trailers, objectStreams, catalogs };
}

/** Reads "num gen" backwards from the "obj" keyword at `at`, or undefined if it is not a header. */
function objectHeaderBefore(buf: Uint8Array, at: number): ScannedObject | undefined {
  let p = at - 1;
  while (p >= 0 && isWhitespace(buf[p])) p--;
  const genEnd = p + 1;
  while (p >= 0 && isDigit(buf[p])) p--;
  const genStart = p + 1;
  if (genStart === genEnd || genEnd - genStart > 5) return undefined;
  const wsEnd = p + 1;
  while (p >= 0 && isWhitespace(buf[p])) p--;
  if (p + 1 === wsEnd) return undefined;
  const numEnd = p + 1;
  while (p >= 0 && isDigit(buf[p])) p--;
  const numStart = p + 1;
  if (numStart === numEnd || numEnd - numStart > 10) return undefined;
  if (p >= 0 && !isWhitespace(buf[p]) && !isDelimiter(buf[p])) return undefined;
  return { num: digits(buf, numStart, numEnd), gen: digits(buf, genStart, genEnd), offset: numStart };
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function digits(buf: Uint8Array, start: number, end: number): number {
  let v = 0;
  for (let i = start; i < end; i++) v = v * 10 + buf[i]! - 0x30;
  return v;
}

/** The last object whose header starts at or before `pos` (objects are in file order). */
function enclosing(objects: readonly ScannedObject[], pos: number): ScannedObject | undefined {
  let lo = 0;
  let hi = objects.length - 1;
  let found: ScannedObject | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (objects[mid]!.offset <= pos) {
      found = objects[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export interface RevisionMark {
  /** The startxref value of this revision. */
  readonly startxref: number;
  /** Offset of the "%%EOF" marker. */
  readonly eofOffset: number;
  /** Offset just past "%%EOF" and its end-of-line: where this revision's bytes end. */
  readonly end: number;
}

/**
 * Every "%%EOF" that closes an update section ("startxref N %%EOF" with N > 0). The first-page
 * section of a linearized file ends in "startxref 0", so it is not counted as a revision.
 */
export function findRevisions(bytes: Uint8Array): RevisionMark[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: RevisionMark[] = [];
  for (let i = buf.indexOf('%%EOF'); i >= 0; i = buf.indexOf('%%EOF', i + 5)) {
    const sx = buf.lastIndexOf('startxref', i);
    if (sx < 0 || i - sx > 64) continue;
    const between = buf.toString('latin1', sx + 9, i);
    const m = /^[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]*$/.exec(between);
    const startxref = m ? Number(m[1]) : 0;
    if (startxref <= 0) continue;
    let end = i + 5;
    if (buf[end] === 0x0d) end++;
    if (buf[end] === 0x0a) end++;
    out.push({ startxref, eofOffset: i, end });
  }
  return out;
}

/**
 * Whether `bytes` hold nothing but PDF whitespace (NUL, tab, LF, FF, CR, space): the only bytes that may follow
 * the last "%%EOF" without being a change of their own. Other control bytes are not whitespace.
 */
export function onlyWhitespace(bytes: Uint8Array): boolean {
  return bytes.every((b) => isWhitespace(b));
}
