/**
 * PdfReader: opens PDF bytes, reads (or repairs) the cross-reference data and resolves objects on
 * demand with a cache. It enforces the resource limits and refuses encrypted files. It keeps the
 * facts an incremental writer needs: trailer, /Size, xref kind, startxref, object offsets, revisions.
 */
import { MoharError } from '../common/errors.js';
import { decodeFilters, filterSpecs } from './filters.js';
import { Lexer } from './lexer.js';
import { invalidPdf, isFatal, resolveLimits, tooComplex, type PdfLimits } from './limits.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, type PdfObject } from './objects.js';
import { indexObjectStream, objectStreamMember, type ObjectStreamData } from './object-streams.js';
import { DecodeBudget } from './output-limit.js';
import { Parser, endstreamFinder, type ParserOptions } from './parser.js';
import { findRevisions, scanObjects, type RevisionMark } from './xref-repair.js';
import {
  findStartxref,
  readXrefChain,
  type XrefContext,
  type XrefEntry,
  type XrefInfo,
  type XrefKind,
} from './xref.js';

/** Most objects being loaded at once (a /Length inside an object stream whose /Length is ...). */
const MAX_LOAD_NESTING = 64;
/** Most hops of a reference that points at another reference. */
const MAX_REF_CHAIN = 32;

export class PdfReader {
  readonly limits: PdfLimits;
  /** Offset of "%PDF-" (normally 0; some files carry junk before it). */
  readonly headerOffset: number;
  /** Version from the header, e.g. "1.7". */
  readonly headerVersion: string;
  private revisionMarks: readonly RevisionMark[] | undefined;
  private xrefInfo!: XrefInfo;
  private readonly cache = new Map<number, PdfObject>();
  private readonly loading = new Set<number>();
  private readonly objectStreams = new Map<number, ObjectStreamData | null>();
  private readonly budget: DecodeBudget;
  /** Options for parsing before the xref exists: stream lengths must then be direct. */
  private readonly plainParser: ParserOptions;
  private readonly parser: ParserOptions;

  private constructor(
    readonly bytes: Uint8Array,
    limits: PdfLimits,
  ) {
    this.limits = limits;
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
    this.headerOffset = head.indexOf('%PDF-');
    if (this.headerOffset < 0) throw invalidPdf('no %PDF- header in the first 1024 bytes');
    const m = /^%PDF-(\d+\.\d+)/.exec(head.toString('latin1', this.headerOffset, this.headerOffset + 16));
    this.headerVersion = m?.[1] ?? '1.0';
    this.budget = new DecodeBudget(limits);
    this.plainParser = {
      maxDepth: limits.maxDepth,
      maxItems: limits.maxObjects,
      findEndstream: endstreamFinder(bytes),
    };
    this.parser = { ...this.plainParser, resolveLength: (ref) => this.resolveLength(ref) };
  }

  /** Opens a PDF. Throws MoharError invalid_pdf, pdf_encrypted or pdf_too_complex. */
  static open(bytes: Uint8Array, limits?: Partial<PdfLimits>): PdfReader {
    const reader = new PdfReader(bytes, resolveLimits(limits));
    reader.load();
    return reader;
  }

  /** Every update section's end, oldest first (see findRevisions); found on first use (a scan of the whole file). */
  get revisions(): readonly RevisionMark[] {
    return (this.revisionMarks ??= findRevisions(this.bytes));
  }

  get xref(): XrefInfo {
    return this.xrefInfo;
  }
  get trailer(): PdfDict {
    return this.xrefInfo.trailer;
  }
  /** Trailer /Size: the first object number a new incremental section may use. */
  get size(): number {
    return this.xrefInfo.size;
  }
  get xrefKind(): XrefKind {
    return this.xrefInfo.kind;
  }
  get catalog(): PdfDict {
    const root = this.resolve(this.trailer.get('Root'));
    if (!(root instanceof PdfDict)) throw invalidPdf('no document catalog');
    return root;
  }

  private load(): void {
    const startxref = findStartxref(this.bytes);
    if (startxref !== undefined) {
      try {
        this.xrefInfo = readXrefChain(this.xrefContext(), startxref, this.headerOffset);
      } catch (err) {
        if (isFatal(err)) throw err;
      }
    }
    if (!this.xrefInfo) this.repair();
    this.refuseEncrypted(this.trailer);
    if (!this.hasPageTree() && !this.xrefInfo.reconstructed) this.repair();
    if (!this.hasPageTree()) throw invalidPdf('no document catalog with a page tree');
  }

  private hasPageTree(): boolean {
    try {
      return this.resolve(this.catalog.get('Pages')) instanceof PdfDict;
    } catch (err) {
      if (isFatal(err)) throw err;
      return false;
    }
  }

  private refuseEncrypted(trailer: PdfDict): void {
    if (trailer.has('Encrypt')) {
      throw new MoharError(
        'pdf_encrypted',
        'The PDF is encrypted or password protected. Please remove the password protection first ' +
          '(for example `qpdf --decrypt in.pdf out.pdf`, or "Print to PDF" in a viewer) and upload again.',
      );
    }
  }

  private xrefContext(): XrefContext {
    return {
      bytes: this.bytes,
      limits: this.limits,
      parser: this.plainParser,
      decodeLimit: () => this.budget.next(),
      chargeDecoded: (n) => this.budget.charge(n),
    };
  }

  /** Rebuilds the xref by scanning the file, as viewers do when startxref or the table is broken. */
  private repair(): void {
    const scan = scanObjects(this.bytes, this.plainParser, this.limits);
    for (const t of scan.trailers) this.refuseEncrypted(t.dict);
    const entries = new Map<number, XrefEntry>();
    const position = new Map<number, number>();
    for (const o of scan.objects) {
      entries.set(o.num, { type: 'offset', offset: o.offset, gen: o.gen });
      position.set(o.num, o.offset);
    }
    const base: XrefInfo = {
      entries,
      trailer: new PdfDict(),
      sections: [],
      startxref: findStartxref(this.bytes),
      kind: 'table',
      size: 0,
      reconstructed: true,
    };
    this.xrefInfo = base;
    this.cache.clear();
    this.objectStreams.clear();
    // Objects inside object streams count as written where their stream is; the later copy wins.
    for (const os of scan.objectStreams) {
      let data: ObjectStreamData | null = null;
      try {
        data = this.objectStream(os.num);
      } catch (err) {
        if (isFatal(err)) throw err;
      }
      data?.pairs.forEach(([num], index) => {
        if ((position.get(num) ?? -1) < os.offset && num !== os.num) {
          entries.set(num, { type: 'compressed', streamNum: os.num, index });
          position.set(num, os.offset);
        }
      });
    }
    if (entries.size > this.limits.maxObjects) throw tooComplex(`more than ${this.limits.maxObjects} objects`);
    let maxNum = -1;
    for (const num of entries.keys()) maxNum = Math.max(maxNum, num);
    // Newest trailer whose /Root is a usable catalog; else the newest object typed /Catalog.
    let chosen: { trailer: PdfDict; kind: XrefKind } | undefined;
    for (const t of [...scan.trailers].reverse()) {
      this.xrefInfo = { ...base, trailer: t.dict };
      if (this.hasPageTree()) {
        chosen = { trailer: t.dict, kind: t.kind };
        break;
      }
    }
    if (!chosen) {
      const catalog = scan.catalogs[scan.catalogs.length - 1];
      const trailer = new PdfDict();
      if (catalog) trailer.set('Root', new PdfRef(catalog.num, catalog.gen));
      chosen = { trailer, kind: 'table' };
    }
    const declared = chosen.trailer.get('Size');
    const size = Math.max(typeof declared === 'number' ? declared : 0, maxNum + 1);
    this.xrefInfo = { ...base, trailer: chosen.trailer, kind: chosen.kind, size };
  }

  /** Follows references (a reference to a reference too) to a direct object; missing objects are null. */
  resolve(obj: PdfObject): PdfObject {
    let value = obj;
    for (let hops = 0; value instanceof PdfRef; hops++) {
      if (hops >= MAX_REF_CHAIN) return null;
      value = this.getObject(value);
    }
    return value;
  }

  /** The object `ref` points at, or null when it does not exist (ISO 32000-1 7.3.10). */
  getObject(ref: PdfRef): PdfObject {
    const { num, gen } = ref;
    const entry = this.xrefInfo.entries.get(num);
    if (!entry || entry.type === 'free') return null;
    if (entry.type === 'offset' && entry.gen !== gen) return null;
    if (entry.type === 'compressed' && gen !== 0) return null;
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    if (this.loading.has(num)) return null; // an object that needs itself to load: treat as missing
    if (this.loading.size >= MAX_LOAD_NESTING) throw tooComplex(`references nested more than ${MAX_LOAD_NESTING} deep`);
    this.loading.add(num);
    let value: PdfObject | undefined;
    try {
      value =
        entry.type === 'offset'
          ? this.parseAt(entry.offset, num, gen)
          : this.parseCompressed(num, entry.streamNum, entry.index);
    } finally {
      this.loading.delete(num);
    }
    if (value === undefined) {
      // The xref pointed at the wrong place: rebuild it once and look again.
      if (this.xrefInfo.reconstructed) return null;
      this.repair();
      return this.getObject(ref);
    }
    this.cache.set(num, value);
    return value;
  }

  /** File offset of an object's "N G obj" header, or undefined (free, missing or compressed). */
  objectOffset(num: number): number | undefined {
    const e = this.xrefInfo.entries.get(num);
    return e?.type === 'offset' ? e.offset : undefined;
  }

  private parseAt(offset: number, num: number, gen: number): PdfObject | undefined {
    const tries = this.headerOffset > 0 ? [offset, offset + this.headerOffset] : [offset];
    for (const at of tries) {
      try {
        const obj = new Parser(this.bytes, at, this.parser).parseIndirectObject();
        if (obj.num === num && obj.gen === gen) return obj.value;
      } catch (err) {
        if (isFatal(err)) throw err;
      }
    }
    return undefined;
  }

  private parseCompressed(num: number, streamNum: number, index: number): PdfObject | undefined {
    const os = this.objectStream(streamNum);
    return os ? objectStreamMember(os, num, index, this.plainParser) : undefined;
  }

  /** Decodes an object stream (/Type /ObjStm) once and indexes its header. */
  private objectStream(streamNum: number): ObjectStreamData | null {
    const known = this.objectStreams.get(streamNum);
    if (known !== undefined) return known;
    const entry = this.xrefInfo.entries.get(streamNum);
    let result: ObjectStreamData | null = null;
    const stream = entry?.type === 'offset' ? this.getObject(new PdfRef(streamNum, entry.gen)) : null;
    if (stream instanceof PdfStream) {
      const n = this.resolve(stream.dict.get('N'));
      const first = this.resolve(stream.dict.get('First'));
      if (typeof n === 'number' && typeof first === 'number' && n >= 0 && first >= 0) {
        if (n > this.limits.maxObjects) throw tooComplex(`more than ${this.limits.maxObjects} objects`);
        result = indexObjectStream(this.decodeStream(stream), n, first);
      }
    }
    this.objectStreams.set(streamNum, result);
    return result;
  }

  /** The decoded data of a stream, counted against the document's decoding budget. */
  decodeStream(stream: PdfStream): Uint8Array {
    const filters = filterSpecs(stream.dict, (o) => this.resolve(o));
    const data = decodeFilters(stream.raw(), filters, this.budget.next());
    this.budget.charge(data.length);
    return data;
  }

  private resolveLength(ref: PdfRef): number | undefined {
    const v = this.getObject(ref);
    return typeof v === 'number' ? v : undefined;
  }

  /** True when the file starts with a linearization dictionary whose /L matches the file length. */
  isLinearized(): boolean {
    try {
      const lexer = new Lexer(this.bytes, this.headerOffset + 5);
      lexer.next(); // version number
      const obj = new Parser(this.bytes, lexer.pos, this.plainParser).parseIndirectObject().value;
      return obj instanceof PdfDict && obj.has('Linearized') && obj.get('L') === this.bytes.length;
    } catch (err) {
      if (isFatal(err)) throw err;
      return false;
    }
  }

  // Typed lookups that resolve references; wrong types read as undefined.
  get(dict: PdfDict | undefined, key: string): PdfObject {
    return dict ? this.resolve(dict.get(key)) : null;
  }
  getDict(dict: PdfDict | undefined, key: string): PdfDict | undefined {
    const v = this.get(dict, key);
    return v instanceof PdfDict ? v : undefined;
  }
  getArray(dict: PdfDict | undefined, key: string): PdfArray | undefined {
    const v = this.get(dict, key);
    return v instanceof PdfArray ? v : undefined;
  }
  getNumber(dict: PdfDict | undefined, key: string): number | undefined {
    const v = this.get(dict, key);
    return typeof v === 'number' ? v : undefined;
  }
  getName(dict: PdfDict | undefined, key: string): string | undefined {
    const v = this.get(dict, key);
    return v instanceof PdfName ? v.name : undefined;
  }
}
