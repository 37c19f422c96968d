/**
 * Incremental updates (ISO 32000-1 7.5.6): every act appends exactly one revision after the
 * existing bytes, which stay identical. The new section:
 *
 * - is an xref stream when the previous (last) section is one, a classic table otherwise;
 * - for a hybrid file (last section = table + /XRefStm) is a classic table WITHOUT /XRefStm. Our
 *   objects are never compressed, so a table describes them completely. A PDF 1.5+ reader follows
 *   /Prev to the hybrid section and reads its /XRefStm there (ISO 32000-1 7.5.8.4: the hidden
 *   stream belongs to the section whose trailer names it); a PDF 1.4 reader sees what it saw before
 *   plus our objects. pyHanko does the same: its reader sets has_xref_stream only for real xref-
 *   stream sections (not for a table's /XRefStm), its incremental writer writes a table then, and
 *   its trailer model treats /XRefStm as a per-section key that is never carried forward.
 * - has /Prev = the previous startxref, numbers new objects from the trailer /Size up, and a
 *   trailer that keeps every entry of the previous one (7.5.6: /Root, /Info, /ID, custom keys)
 *   except the section-structure keys; /ID keeps its first element, the second is renewed.
 * - Linearized files are appended to after their last byte: the linearization is then no longer
 *   valid (viewers fall back to normal reading), which is accepted.
 * - A file whose last line lacks an end-of-line gets one before the update; junk after the last
 *   %%EOF stays in place (it is part of the earlier bytes) and the update follows it.
 * - When the reader had to rebuild the xref by scanning (`xref.reconstructed`), the new section
 *   lists every object found (a complete table or stream, no /Prev), so the result is whole again;
 *   a damaged file that carries signatures is refused instead (damaged.ts).
 *
 * Only objects registered with `add`/`set`/`edit` are written, each with our serializer; unchanged
 * objects are never re-serialized. `write()` checks that the old bytes are a prefix of the result.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { MoharError } from '../../common/errors.js';
import type { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';
import { ByteWriter, cloneArray, cloneDict, writeIndirectObject, writeObject, type Span } from './serialize.js';
import { refuseSignedRepair } from './damaged.js';

/** Trailer keys that describe a section rather than the document: never copied forward. */
const SECTION_KEYS = new Set([
  'Size',
  'Prev',
  'XRefStm',
  'Type',
  'W',
  'Index',
  'Filter',
  'DecodeParms',
  'Length',
  'DL',
  'F',
  'FFilter',
  'FDecodeParms',
]);

export type SectionKind = 'table' | 'stream';

/** What `writeRevision()` gives: the new revision alone, with offsets and spans in the whole file's terms. */
export interface RevisionResult {
  /** The old bytes, untouched: the prefix of the new file. */
  readonly original: Uint8Array;
  /** The appended revision: what follows the old bytes in the new file. */
  readonly revision: Buffer;
  /** Offset of the new xref section (the value after the new "startxref"). */
  readonly startxref: number;
  readonly kind: SectionKind;
  /** New trailer /Size. */
  readonly size: number;
  /** Object numbers written, with the file offset of each "N G obj". */
  readonly offsets: ReadonlyMap<number, number>;
  /** Absolute byte spans of tracked objects (see IncrementalUpdate.track). */
  readonly spans: ReadonlyMap<object, Span>;
  /** Length of the original bytes (the prefix that did not change). */
  readonly previousLength: number;
}

export interface UpdateResult extends RevisionResult {
  /** The whole new file: the old bytes, then the appended revision. */
  readonly bytes: Buffer;
}

export function writeFailed(message: string): MoharError {
  return new MoharError('pdf_write_failed', `Could not write the PDF update: ${message}.`);
}

/** Throws unless `original` is a byte-for-byte prefix of `updated`. */
export function assertPrefix(original: Uint8Array, updated: Uint8Array): void {
  if (updated.length < original.length) throw writeFailed('the update is shorter than the original');
  const a = Buffer.from(original.buffer, original.byteOffset, original.byteLength);
  const b = Buffer.from(updated.buffer, updated.byteOffset, original.byteLength);
  if (!a.equals(b)) throw writeFailed('earlier bytes of the file were changed');
}

export class IncrementalUpdate {
  private readonly pending = new Map<number, { gen: number; value: PdfObject | undefined }>();
  private readonly tracked = new Set<object>();
  private nextNum: number;

  constructor(readonly reader: PdfReader) {
    this.nextNum = reader.size;
  }

  /** The first object number this update allocates (the previous trailer /Size). */
  get firstNewNumber(): number {
    return this.reader.size;
  }

  /** A fresh object number (the object itself is given later with `set`). */
  allocate(): PdfRef {
    const ref = new PdfRef(this.nextNum++, 0);
    this.pending.set(ref.num, { gen: 0, value: undefined });
    return ref;
  }

  /** Adds a new object and returns its reference. */
  add(value: PdfObject): PdfRef {
    const ref = this.allocate();
    this.set(ref, value);
    return ref;
  }

  /** Gives the value of an allocated object, or writes a new version of an existing one. */
  set(ref: PdfRef, value: PdfObject): void {
    const mine = this.pending.get(ref.num);
    if (!mine && ref.num >= this.reader.size) throw writeFailed(`object ${ref.num} was never allocated`);
    if (!mine && this.reader.getObject(ref) === null) throw writeFailed(`object ${ref.key} does not exist`);
    this.pending.set(ref.num, { gen: mine?.gen ?? ref.gen, value });
  }

  /** True when this update writes (a new version of) the object. */
  has(ref: PdfRef): boolean {
    return this.pending.get(ref.num)?.value !== undefined;
  }

  /** The object as this update sees it: our pending version first, else the file's. */
  getObject(ref: PdfRef): PdfObject {
    const mine = this.pending.get(ref.num);
    if (mine) return mine.value ?? null;
    return this.reader.getObject(ref);
  }

  /** Follows references through pending versions first. */
  resolve(obj: PdfObject): PdfObject {
    let v = obj;
    for (let hops = 0; v instanceof PdfRef; hops++) {
      if (hops > 32) return null;
      v = this.getObject(v);
    }
    return v;
  }

  /**
   * A writable copy of an existing dictionary (or array) object, registered as its new version.
   * Editing twice returns the same copy.
   */
  editDict(ref: PdfRef): PdfDict {
    const mine = this.pending.get(ref.num);
    if (mine?.value instanceof PdfDict) return mine.value;
    const current = this.reader.getObject(ref);
    if (!(current instanceof PdfDict)) throw writeFailed(`object ${ref.key} is not a dictionary`);
    const copy = cloneDict(current);
    this.set(ref, copy);
    return copy;
  }

  editArray(ref: PdfRef): PdfArray {
    const mine = this.pending.get(ref.num);
    if (mine?.value instanceof PdfArray) return mine.value;
    const current = this.reader.getObject(ref);
    if (!(current instanceof PdfArray)) throw writeFailed(`object ${ref.key} is not an array`);
    const copy = cloneArray(current);
    this.set(ref, copy);
    return copy;
  }

  /** Records where `obj` (a direct object inside a written object) lands in the new file. */
  track(obj: object): void {
    this.tracked.add(obj);
  }

  /** Which kind of section this update writes (see the module comment). */
  sectionKind(): SectionKind {
    const x = this.reader.xref;
    if (x.reconstructed) {
      for (const e of x.entries.values()) if (e.type === 'compressed') return 'stream';
      return x.kind === 'stream' ? 'stream' : 'table';
    }
    return x.kind === 'stream' ? 'stream' : 'table';
  }

  /** The new file in one buffer: a copy of the original followed by the new revision. */
  write(): UpdateResult {
    const result = this.writeRevision();
    const { original, revision } = result;
    // The old bytes are a prefix by construction.
    return {
      ...result,
      bytes: Buffer.concat([Buffer.from(original.buffer, original.byteOffset, original.byteLength), revision]),
    };
  }

  /**
   * The new revision alone, for a caller that keeps the old bytes as they are (signPdf: hashing and writing the
   * two pieces costs no copy of a large file).
   */
  writeRevision(): RevisionResult {
    const reader = this.reader;
    const original = reader.bytes;
    for (const [num, p] of this.pending) {
      if (p.value === undefined) throw writeFailed(`object ${num} was allocated but never set`);
    }
    if (this.pending.size === 0) throw writeFailed('nothing to write');
    // Only now, every object having been read: an offset found wrong on the way rebuilds the xref.
    refuseSignedRepair(reader);

    // Offsets: absolute, unless the file counts them from a header preceded by junk.
    const shift = this.offsetShift();
    const last = original[original.length - 1];
    const eol = original.length > 0 && last !== 0x0a && last !== 0x0d;
    const w = new ByteWriter();
    if (eol) w.text('\n');

    const spans = new Map<object, Span>();
    const offsets = new Map<number, number>();
    const rows = new Map<number, { offset: number; gen: number }>();
    const nums = [...this.pending.keys()].sort((a, b) => a - b);
    for (const num of nums) {
      const p = this.pending.get(num)!;
      const offset = original.length + w.length;
      offsets.set(num, offset);
      rows.set(num, { offset: offset - shift, gen: p.gen });
      const local = new Map<object, Span>();
      writeIndirectObject(w, num, p.gen, p.value!, { track: this.tracked, spans: local });
      for (const [o, s] of local) spans.set(o, { start: s.start + original.length, end: s.end + original.length });
    }

    const kind = this.sectionKind();
    const trailer = this.newTrailer(w, original.length);
    let size = Math.max(reader.size, (nums[nums.length - 1] ?? 0) + 1);
    const full = reader.xref.reconstructed;
    const sectionOffset = original.length + w.length;
    if (kind === 'table') {
      trailer.set('Size', size);
      this.writeTable(w, rows, full);
      w.text('trailer\n');
      writeObject(w, trailer);
      w.text('\n');
    } else {
      const xrefNum = Math.max(this.nextNum, size);
      size = xrefNum + 1;
      rows.set(xrefNum, { offset: sectionOffset - shift, gen: 0 });
      offsets.set(xrefNum, sectionOffset);
      trailer.set('Size', size);
      const stream = this.xrefStream(rows, trailer, full);
      writeIndirectObject(w, xrefNum, 0, stream);
    }
    w.text(`startxref\n${sectionOffset - shift}\n%%EOF\n`);
    return {
      original,
      revision: w.toBytes(),
      startxref: sectionOffset,
      kind,
      size,
      offsets,
      spans,
      previousLength: original.length,
    };
  }

  /** 0, or the header offset when the file's own offsets are counted from "%PDF-". */
  private offsetShift(): number {
    const r = this.reader;
    const first = r.xref.sections[0];
    if (
      r.headerOffset > 0 &&
      first &&
      r.xref.startxref !== undefined &&
      first.offset === r.xref.startxref + r.headerOffset
    ) {
      return r.headerOffset;
    }
    return 0;
  }

  private newTrailer(w: ByteWriter, originalLength: number): PdfDict {
    const prev = this.reader.trailer;
    const t = new PdfDict();
    for (const [k, v] of prev.map) if (!SECTION_KEYS.has(k)) t.set(k, v);
    if (!this.reader.xref.reconstructed && this.reader.xref.startxref !== undefined) {
      t.set('Prev', this.reader.xref.startxref);
    }
    // /ID: keep the permanent identifier, renew the changing one from the new content (deterministic).
    const hash = createHash('md5')
      .update(this.reader.bytes.subarray(Math.max(0, originalLength - 4096)))
      .update(w.toBytes())
      .digest();
    const id = this.reader.resolve(prev.get('ID'));
    const first = id instanceof PdfArray && id.get(0) instanceof PdfString ? (id.get(0) as PdfString) : undefined;
    // A file without /ID gets one from its length, start and end (ISO 32000-1 14.4 leaves the method
    // open); hashing the whole file cost ~75 ms per 50 MB.
    const b = this.reader.bytes;
    const permanent =
      first ??
      new PdfString(
        createHash('md5')
          .update(String(b.length))
          .update(b.subarray(0, 65536))
          .update(b.subarray(Math.max(0, b.length - 65536)))
          .digest(),
        true,
      );
    t.set('ID', new PdfArray([permanent, new PdfString(hash, true)]));
    return t;
  }

  private writeTable(w: ByteWriter, rows: Map<number, { offset: number; gen: number }>, full: boolean): void {
    const all = new Map<number, { offset: number; gen: number; free?: boolean }>();
    if (full) {
      all.set(0, { offset: 0, gen: 65535, free: true });
      for (const [num, e] of this.reader.xref.entries) {
        if (num === 0) continue;
        if (e.type === 'offset') all.set(num, { offset: e.offset, gen: e.gen });
        else if (e.type === 'free') all.set(num, { offset: 0, gen: e.gen, free: true });
      }
    }
    for (const [num, r] of rows) all.set(num, r);
    const nums = [...all.keys()].sort((a, b) => a - b);
    w.text('xref\n');
    for (let i = 0; i < nums.length;) {
      let j = i;
      while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
      w.text(`${nums[i]} ${j - i + 1}\n`);
      for (let k = i; k <= j; k++) {
        const r = all.get(nums[k]!)!;
        w.text(
          `${String(r.offset).padStart(10, '0')} ${String(Math.min(r.gen, 65535)).padStart(5, '0')} ${r.free ? 'f' : 'n'} \n`,
        );
      }
      i = j + 1;
    }
  }

  private xrefStream(rows: Map<number, { offset: number; gen: number }>, trailer: PdfDict, full: boolean): PdfStream {
    type Row = [number, number, number];
    const all = new Map<number, Row>();
    if (full) {
      all.set(0, [0, 0, 65535]);
      for (const [num, e] of this.reader.xref.entries) {
        if (num === 0) continue;
        if (e.type === 'offset') all.set(num, [1, e.offset, e.gen]);
        else if (e.type === 'compressed') all.set(num, [2, e.streamNum, e.index]);
        else all.set(num, [0, 0, e.gen]);
      }
    }
    for (const [num, r] of rows) all.set(num, [1, r.offset, r.gen]);
    let max2 = 0;
    let max3 = 0;
    for (const [, f2, f3] of all.values()) {
      max2 = Math.max(max2, f2);
      max3 = Math.max(max3, f3);
    }
    const width = (n: number): number => Math.max(1, Math.ceil(Math.log2(n + 1) / 8));
    const w2 = width(max2);
    const w3 = width(max3);
    const nums = [...all.keys()].sort((a, b) => a - b);
    const data = Buffer.alloc(nums.length * (1 + w2 + w3));
    const index: number[] = [];
    let p = 0;
    for (let i = 0; i < nums.length; i++) {
      const num = nums[i]!;
      if (i > 0 && num === nums[i - 1]! + 1) index[index.length - 1]!++;
      else index.push(num, 1);
      const [t, f2, f3] = all.get(num)!;
      data[p++] = t;
      for (let b = w2 - 1; b >= 0; b--) data[p++] = Math.floor(f2 / 256 ** b) % 256;
      for (let b = w3 - 1; b >= 0; b--) data[p++] = Math.floor(f3 / 256 ** b) % 256;
    }
    const d = new PdfDict();
    d.set('Type', new PdfName('XRef'));
    for (const [k, v] of trailer.map) d.set(k, v);
    d.set('W', new PdfArray([1, w2, w3]));
    d.set('Index', new PdfArray(index));
    d.set('Filter', new PdfName('FlateDecode'));
    const body = deflateSync(data);
    return new PdfStream(d, body, 0, body.length);
  }
}
