/**
 * Cross-reference reading (ISO 32000-1 7.5.4, 7.5.8): classic tables, xref streams, hybrid files
 * (/XRefStm) and the /Prev chain of incremental updates. The model keeps what an incremental writer
 * needs: every section with its offset, kind and trailer, the startxref value and /Size.
 * Anything broken makes readXrefChain throw; the reader then falls back to xref-repair.ts.
 */
import { filterSpecs, decodeFilters, type OutputLimit } from './filters.js';
import { Lexer, isWhitespace } from './lexer.js';
import { invalidPdf, isFatal, tooComplex, type PdfLimits } from './limits.js';
import { PdfArray, PdfDict, PdfStream, type PdfObject } from './objects.js';
import { Parser, type ParserOptions } from './parser.js';

export type XrefEntry =
  | { readonly type: 'free'; readonly gen: number }
  | { readonly type: 'offset'; readonly offset: number; readonly gen: number }
  | { readonly type: 'compressed'; readonly streamNum: number; readonly index: number };

export type XrefKind = 'table' | 'stream' | 'hybrid';

export interface XrefSection {
  /** Offset of the "xref" keyword or of the xref stream object. */
  readonly offset: number;
  readonly kind: XrefKind;
  /** The trailer dictionary (for an xref stream: the stream dictionary). */
  readonly trailer: PdfDict;
  /** Hybrid files: offset of the xref stream named by /XRefStm. */
  readonly xrefStm?: number;
}

export interface XrefInfo {
  /** Object number -> where it lives, with later sections overriding earlier ones. */
  readonly entries: Map<number, XrefEntry>;
  /** Trailer of the newest section (or the one chosen during repair). */
  readonly trailer: PdfDict;
  /** Sections from newest to oldest; empty when the table was reconstructed. */
  readonly sections: readonly XrefSection[];
  /** The value after the last "startxref", if any. */
  readonly startxref: number | undefined;
  /** Kind of the newest section: what a new incremental section should be written as. */
  readonly kind: XrefKind;
  /** Trailer /Size, at least one more than the highest object number seen. */
  readonly size: number;
  /** True when the file's own xref was unusable and objects were found by scanning. */
  readonly reconstructed: boolean;
}

export interface XrefContext {
  readonly bytes: Uint8Array;
  readonly limits: PdfLimits;
  readonly parser: ParserOptions;
  /** Counts decoded bytes against the document budget and returns the per-stream limit. */
  readonly decodeLimit: () => OutputLimit;
  readonly chargeDecoded: (n: number) => void;
}

/** The offset after the last "startxref" keyword, or undefined. */
export function findStartxref(bytes: Uint8Array): number | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buf.lastIndexOf('startxref');
  if (at < 0) return undefined;
  const lexer = new Lexer(bytes, at + 9);
  const tok = lexer.next();
  return tok.type === 'number' && tok.isInt && tok.value >= 0 ? tok.value : undefined;
}

/** Reads the section at `startxref` and every /Prev before it. Throws on any damage. */
export function readXrefChain(ctx: XrefContext, startxref: number, shift: number): XrefInfo {
  let entries = new Map<number, XrefEntry>();
  const sections: XrefSection[] = [];
  const visited = new Set<number>();
  let next: number | undefined = startxref;
  while (next !== undefined) {
    if (visited.has(next)) break; // a /Prev cycle: every section has been read once, stop
    visited.add(next);
    const { section, sectionEntries } = readSection(ctx, next, shift);
    sections.push(section);
    // Newest section first, so an object keeps the first definition seen (free entries included).
    if (sections.length === 1) entries = sectionEntries;
    else for (const [num, e] of sectionEntries) if (!entries.has(num)) entries.set(num, e);
    if (entries.size > ctx.limits.maxObjects) throw tooComplex(`more than ${ctx.limits.maxObjects} objects`);
    const prev = section.trailer.get('Prev');
    next = typeof prev === 'number' && Number.isInteger(prev) && prev >= 0 ? prev : undefined;
  }
  const newest = sections[0]!;
  let maxNum = -1;
  for (const num of entries.keys()) if (num > maxNum) maxNum = num;
  const declared = newest.trailer.get('Size');
  const size = Math.max(typeof declared === 'number' ? declared : 0, maxNum + 1);
  return { entries, trailer: newest.trailer, sections, startxref, kind: newest.kind, size, reconstructed: false };
}

function readSection(
  ctx: XrefContext,
  offset: number,
  shift: number,
): { section: XrefSection; sectionEntries: Map<number, XrefEntry> } {
  // Some files have junk before "%PDF-" and offsets counted from the header: try both.
  for (const at of shift > 0 ? [offset, offset + shift] : [offset]) {
    const lexer = new Lexer(ctx.bytes, at);
    const tok = lexer.next();
    if (tok.type === 'keyword' && tok.value === 'xref') return readTableSection(ctx, tok.start, lexer.pos, shift);
    if (tok.type === 'number') {
      try {
        const { trailer, sectionEntries } = readXrefStream(ctx, tok.start);
        return { section: { offset: tok.start, kind: 'stream', trailer }, sectionEntries };
      } catch (err) {
        if (!isFatal(err) && at === offset && shift > 0) continue;
        throw err;
      }
    }
  }
  throw invalidPdf(`no cross-reference section at offset ${offset}`);
}

function readTableSection(ctx: XrefContext, offset: number, pos: number, shift: number) {
  const { entries, trailerPos } = readTable(ctx, pos);
  const parser = new Parser(ctx.bytes, trailerPos, ctx.parser);
  const trailer = parser.parseObject();
  if (!(trailer instanceof PdfDict)) throw invalidPdf(`no trailer dictionary after the xref table at ${offset}`);
  const stm = trailer.get('XRefStm');
  if (typeof stm !== 'number' || !Number.isInteger(stm) || stm < 0) {
    return { section: { offset, kind: 'table' as const, trailer }, sectionEntries: entries };
  }
  // Hybrid file: the stream lists the objects a PDF 1.5 reader finds in object streams; entries the
  // table leaves out or marks free are taken from it, in-use table entries stay authoritative.
  const { sectionEntries: streamEntries } = readSection(ctx, stm, shift);
  for (const [num, e] of streamEntries) {
    const mine = entries.get(num);
    if (mine === undefined || mine.type === 'free') entries.set(num, e);
  }
  return { section: { offset, kind: 'hybrid' as const, trailer, xrefStm: stm }, sectionEntries: entries };
}

/** Classic table: subsections of "start count" then 20-byte "oooooooooo ggggg n" lines (spacing tolerated). */
function readTable(ctx: XrefContext, pos: number): { entries: Map<number, XrefEntry>; trailerPos: number } {
  const buf = ctx.bytes;
  const entries = new Map<number, XrefEntry>();
  let p = pos;
  const skipWs = (): void => {
    while (p < buf.length && isWhitespace(buf[p])) p++;
  };
  const readInt = (): number => {
    skipWs();
    const start = p;
    let v = 0;
    while (p < buf.length && buf[p]! >= 0x30 && buf[p]! <= 0x39) v = v * 10 + buf[p++]! - 0x30;
    return p === start ? -1 : v;
  };
  for (;;) {
    skipWs();
    if (buf[p] === 0x74 /* t */) {
      const lexer = new Lexer(buf, p);
      const tok = lexer.next();
      if (tok.type === 'keyword' && tok.value === 'trailer') return { entries, trailerPos: lexer.pos };
      break;
    }
    const first = readInt();
    const count = readInt();
    if (first < 0 || count < 0) break;
    for (let i = 0; i < count; i++) {
      skipWs();
      if (isStandardEntry(buf, p)) {
        // Fast path for the standard 20-byte line "oooooooooo ggggg n".
        const offset = digitsAt(buf, p, 10);
        const gen = digitsAt(buf, p + 11, 5);
        const inUse = buf[p + 17] === 0x6e;
        p += 18;
        if (entries.size >= ctx.limits.maxObjects) throw tooComplex(`more than ${ctx.limits.maxObjects} objects`);
        entries.set(first + i, inUse && offset > 0 ? { type: 'offset', offset, gen } : { type: 'free', gen });
        continue;
      }
      const offset = readInt();
      const gen = readInt();
      skipWs();
      const kind = buf[p++];
      if (offset < 0 || gen < 0 || (kind !== 0x6e && kind !== 0x66)) {
        throw invalidPdf(`bad xref table entry near offset ${p}`);
      }
      if (entries.size >= ctx.limits.maxObjects) throw tooComplex(`more than ${ctx.limits.maxObjects} objects`);
      // An in-use entry at offset 0 is a common writer bug; treat it as free.
      entries.set(first + i, kind === 0x6e && offset > 0 ? { type: 'offset', offset, gen } : { type: 'free', gen });
    }
  }
  throw invalidPdf('xref table without trailer');
}

function isStandardEntry(buf: Uint8Array, p: number): boolean {
  if (p + 18 > buf.length || buf[p + 10] !== 0x20 || buf[p + 16] !== 0x20) return false;
  const kind = buf[p + 17];
  if (kind !== 0x6e && kind !== 0x66) return false;
  for (let i = 0; i < 16; i++) {
    if (i === 10) continue;
    const c = buf[p + i]!;
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function digitsAt(buf: Uint8Array, p: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 10 + buf[p + i]! - 0x30;
  return v;
}

/** An xref stream (7.5.8): /W field widths, /Index subsections, decoded with predictors. */
export function readXrefStream(
  ctx: XrefContext,
  offset: number,
): { trailer: PdfDict; sectionEntries: Map<number, XrefEntry> } {
  const parser = new Parser(ctx.bytes, offset, ctx.parser);
  const obj = parser.parseIndirectObject().value;
  if (!(obj instanceof PdfStream) || !(obj.dict.get('W') instanceof PdfArray)) {
    throw invalidPdf(`no xref stream at offset ${offset}`);
  }
  const dict = obj.dict;
  const widths = (dict.get('W') as PdfArray).items.map((w) => (typeof w === 'number' ? w : -1));
  if (widths.length < 3 || widths.some((w) => !Number.isInteger(w) || w < 0 || w > 8)) {
    throw invalidPdf('xref stream has a bad /W');
  }
  const [w0, w1, w2] = widths as [number, number, number];
  const rowSize = w0 + w1 + w2;
  const size = dict.get('Size');
  const index = dict.get('Index');
  const ranges: number[] =
    index instanceof PdfArray
      ? index.items.map((n) => (typeof n === 'number' ? n : -1))
      : [0, typeof size === 'number' ? size : 0];
  let total = 0;
  for (let i = 1; i < ranges.length; i += 2) total += Math.max(0, ranges[i]!);
  if (total > ctx.limits.maxObjects) throw tooComplex(`more than ${ctx.limits.maxObjects} objects`);
  if (rowSize === 0) throw invalidPdf('xref stream has a bad /W');

  const limit = ctx.decodeLimit();
  const data = decodeFilters(obj.raw(), filterSpecs(dict, direct), limit);
  ctx.chargeDecoded(data.length);

  const entries = new Map<number, XrefEntry>();
  // One pass with no closure per field: files of 10^5 objects spend their open here (issue 30).
  let p = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r]!;
    const count = ranges[r + 1]!;
    if (first < 0 || count < 0) throw invalidPdf('xref stream has a bad /Index');
    const rows = Math.min(count, Math.floor((data.length - p) / rowSize));
    for (let i = 0; i < rows; i++, p += rowSize) {
      const type = w0 === 0 ? 1 : readField(data, p, w0);
      const f2 = readField(data, p + w0, w1);
      const f3 = readField(data, p + w0 + w1, w2);
      const num = first + i;
      if (type === 0) entries.set(num, { type: 'free', gen: f3 });
      else if (type === 1) {
        entries.set(num, f2 > 0 ? { type: 'offset', offset: f2, gen: f3 } : { type: 'free', gen: f3 });
      } else if (type === 2) entries.set(num, { type: 'compressed', streamNum: f2, index: f3 });
      // other types are reserved: such references resolve to null
    }
  }
  return { trailer: dict, sectionEntries: entries };
}

/** A big-endian field of `width` bytes (0 to 8) at `p`; a zero-width field reads as 0. */
function readField(data: Uint8Array, p: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) v = v * 256 + data[p + i]!;
  return v;
}

/** Xref streams must hold their /Filter and /DecodeParms directly: nothing can be resolved yet. */
function direct(obj: PdfObject): PdfObject {
  return obj;
}
