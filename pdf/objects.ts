/**
 * The PDF object model. Values stay close to the file: strings keep their bytes, streams keep
 * the file offsets of their raw data (decoded lazily by PdfReader), indirect objects remember where
 * they were found. This is what an incremental writer needs to append to a file without rewriting it.
 */

export class PdfName {
  constructor(readonly name: string) {}
  toString(): string {
    return `/${this.name}`;
  }
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
  /** Stable map key, e.g. "12 0". */
  get key(): string {
    return `${this.num} ${this.gen}`;
  }
  toString(): string {
    return `${this.num} ${this.gen} R`;
  }
}

/** A string object: the decoded bytes (escapes or hex already undone) and how it was written. */
export class PdfString {
  constructor(
    readonly bytes: Uint8Array,
    readonly hex: boolean,
  ) {}

  /** Text string semantics (ISO 32000 7.9.2.2): UTF-16BE or UTF-8 with BOM, else PDFDocEncoding. */
  toText(): string {
    const b = this.bytes;
    if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) {
      return new TextDecoder('utf-16be').decode(b.subarray(2));
    }
    if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      return new TextDecoder('utf-8').decode(b.subarray(3));
    }
    let out = '';
    for (const c of b) out += PDF_DOC_HIGH[c - 0x80] ?? String.fromCharCode(c);
    return out;
  }

  /** Raw bytes as a latin1 string (lossless), e.g. for comparing keywords. */
  toLatin1(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('latin1');
  }
}

// PDFDocEncoding differs from Latin-1 in 0x80..0x9F (and 0xAD); the rest maps 1:1.
// prettier-ignore
const PDF_DOC_HIGH: readonly (string | undefined)[] = [
  '\u2022', '\u2020', '\u2021', '\u2026', '\u2014', '\u2013', '\u0192', '\u2044',
  '\u2039', '\u203a', '\u2212', '\u2030', '\u201e', '\u201c', '\u201d', '\u2018',
  '\u2019', '\u201a', '\u2122', '\ufb01', '\ufb02', '\u0141', '\u0152', '\u0160',
  '\u0178', '\u017d', '\u0131', '\u0142', '\u0153', '\u0161', '\u017e', undefined,
  '\u20ac',
];

export class PdfArray {
  constructor(readonly items: PdfObject[]) {}
  get length(): number {
    return this.items.length;
  }
  get(index: number): PdfObject {
    return this.items[index] ?? null;
  }
}

/** A dictionary. Keys are name strings without the slash. Null values are never stored (7.3.7). */
export class PdfDict {
  readonly map = new Map<string, PdfObject>();

  get(key: string): PdfObject {
    return this.map.get(key) ?? null;
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  set(key: string, value: PdfObject): void {
    if (value === null) this.map.delete(key);
    else this.map.set(key, value);
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  get size(): number {
    return this.map.size;
  }
  /** The value if it is a name (direct only: resolve first when it may be indirect). */
  getName(key: string): string | undefined {
    const v = this.map.get(key);
    return v instanceof PdfName ? v.name : undefined;
  }
  getNumber(key: string): number | undefined {
    const v = this.map.get(key);
    return typeof v === 'number' ? v : undefined;
  }
  getRef(key: string): PdfRef | undefined {
    const v = this.map.get(key);
    return v instanceof PdfRef ? v : undefined;
  }
}

/**
 * A stream: its dictionary and where its raw (still encoded) data lies in `source`.
 * For streams read from a file, `source` is the whole file, so dataStart/dataEnd are file offsets.
 */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly source: Uint8Array,
    readonly dataStart: number,
    readonly dataEnd: number,
  ) {}
  /** The encoded bytes as stored in the file (a view, not a copy). */
  raw(): Uint8Array {
    return this.source.subarray(this.dataStart, this.dataEnd);
  }
}

export type PdfObject = number | boolean | null | PdfName | PdfString | PdfArray | PdfDict | PdfStream | PdfRef;

/** An object read from `N G obj ... endobj`, with the offset of its header in the file. */
export interface IndirectObject {
  readonly num: number;
  readonly gen: number;
  readonly value: PdfObject;
  /** Offset of the "N G obj" header, or -1 for objects inside an object stream. */
  readonly offset: number;
}

export function isName(obj: PdfObject, name?: string): obj is PdfName {
  return obj instanceof PdfName && (name === undefined || obj.name === name);
}

/** The dictionary of a dict or of a stream, else undefined. */
export function asDict(obj: PdfObject): PdfDict | undefined {
  if (obj instanceof PdfDict) return obj;
  if (obj instanceof PdfStream) return obj.dict;
  return undefined;
}

export function isInteger(obj: PdfObject): obj is number {
  return typeof obj === 'number' && Number.isInteger(obj);
}
