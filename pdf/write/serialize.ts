/**
 * PDF object serializer (ISO 32000-1 7.3): our own writer for the objects an incremental update
 * adds or replaces. Names are #xx-escaped, literal strings escaped (or written as hex when the
 * string was read as hex), numbers never use an exponent, streams get a direct /Length.
 *
 * Byte positions of chosen objects can be recorded while writing (`track`): signing needs the exact
 * offsets of the /Contents placeholder and of the /ByteRange array inside the written revision.
 */
import { deflateSync } from 'node:zlib';
import { MoharError } from '../../common/errors.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';

/** Most decimals written for a real number (PDF viewers use single precision anyway). */
export const MAX_DECIMALS = 6;

/** Where a tracked object was written: [start, end) relative to the writer's first byte. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Appends latin1 text and raw bytes; knows its length so offsets are cheap. */
export class ByteWriter {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }
  text(s: string): this {
    return this.bytes(Buffer.from(s, 'latin1'));
  }
  bytes(b: Uint8Array): this {
    if (b.length > 0) {
      this.chunks.push(b);
      this.size += b.length;
    }
    return this;
  }
  toBytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

function writeFailed(message: string): MoharError {
  return new MoharError('pdf_write_failed', `Could not write the PDF update: ${message}.`);
}

/** A number as PDF text: integers as they are, reals with at most MAX_DECIMALS decimals, no exponent. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) throw writeFailed(`the number ${n} cannot be written`);
  if (Number.isInteger(n)) {
    if (!Number.isSafeInteger(n)) throw writeFailed(`the number ${n} is too large`);
    return Object.is(n, -0) ? '0' : String(n);
  }
  if (Math.abs(n) >= 1e15) throw writeFailed(`the number ${n} is too large`);
  let s = n.toFixed(MAX_DECIMALS);
  s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0' || s === '') return '0';
  return s;
}

const NAME_DELIMITERS = new Set([...'()<>[]{}/%#'].map((c) => c.charCodeAt(0)));

/** The bytes of a name: latin1 when every character fits (as the lexer reads them), else UTF-8. */
function nameBytes(name: string): Buffer {
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0xff) return Buffer.from(name, 'utf8');
  return Buffer.from(name, 'latin1');
}

/** "/Name" with #xx escapes for bytes outside 0x21..0x7E, delimiters and "#" (7.3.5). */
export function formatName(name: string): string {
  let out = '/';
  for (const b of nameBytes(name)) {
    if (b === 0) throw writeFailed('a name cannot contain a NUL byte');
    if (b < 0x21 || b > 0x7e || NAME_DELIMITERS.has(b)) out += `#${b.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

/** A literal string "(...)": backslash, parentheses, CR/LF and non-printable bytes escaped. */
export function formatLiteralString(bytes: Uint8Array): string {
  let out = '(';
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x28) out += '\\(';
    else if (b === 0x29) out += '\\)';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b < 0x20 || b > 0x7e) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out + ')';
}

export function formatHexString(bytes: Uint8Array): string {
  return `<${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').toUpperCase()}>`;
}

export interface SerializeOptions {
  /** Objects (by identity) whose byte span should be recorded. */
  readonly track?: ReadonlySet<object>;
  /** Receives the spans of tracked objects, relative to the writer's start. */
  readonly spans?: Map<object, Span>;
}

/** Writes a direct object (or a stream) to `w`. */
export function writeObject(w: ByteWriter, obj: PdfObject, opts: SerializeOptions = {}, depth = 0): void {
  if (depth > 512) throw writeFailed('objects nested too deeply');
  const tracked = obj !== null && typeof obj === 'object' && opts.track?.has(obj) === true;
  const start = w.length;
  if (obj === null) w.text('null');
  else if (typeof obj === 'boolean') w.text(obj ? 'true' : 'false');
  else if (typeof obj === 'number') w.text(formatNumber(obj));
  else if (obj instanceof PdfName) w.text(formatName(obj.name));
  else if (obj instanceof PdfString) w.text(obj.hex ? formatHexString(obj.bytes) : formatLiteralString(obj.bytes));
  else if (obj instanceof PdfRef) w.text(`${obj.num} ${obj.gen} R`);
  else if (obj instanceof PdfArray) {
    w.text('[');
    obj.items.forEach((item, i) => {
      if (i > 0) w.text(' ');
      writeObject(w, item, opts, depth + 1);
    });
    w.text(']');
  } else if (obj instanceof PdfDict) {
    writeDict(w, obj, opts, depth, undefined);
  } else if (obj instanceof PdfStream) {
    const data = obj.raw();
    writeDict(w, obj.dict, opts, depth, data.length);
    w.text('\nstream\n').bytes(data).text('\nendstream');
  } else {
    throw writeFailed('unknown object type');
  }
  if (tracked) opts.spans?.set(obj, { start, end: w.length });
}

function writeDict(
  w: ByteWriter,
  dict: PdfDict,
  opts: SerializeOptions,
  depth: number,
  streamLength: number | undefined,
): void {
  w.text('<<');
  for (const [key, value] of dict.map) {
    if (streamLength !== undefined && key === 'Length') continue;
    if (value === null) continue;
    w.text(' ').text(formatName(key)).text(' ');
    writeObject(w, value, opts, depth + 1);
  }
  if (streamLength !== undefined) w.text(` /Length ${streamLength}`);
  w.text(' >>');
}

/** "N G obj ... endobj" for one indirect object. */
export function writeIndirectObject(
  w: ByteWriter,
  num: number,
  gen: number,
  value: PdfObject,
  opts: SerializeOptions = {},
): void {
  w.text(`${num} ${gen} obj\n`);
  writeObject(w, value, opts);
  w.text('\nendobj\n');
}

/** Serializes a direct object to bytes. */
export function serializeObject(obj: PdfObject): Buffer {
  const w = new ByteWriter();
  writeObject(w, obj);
  return w.toBytes();
}

/** A new stream over `data`; with `compress`, Flate-encoded and marked /FlateDecode. */
export function makeStream(dict: PdfDict, data: Uint8Array, opts: { compress?: boolean } = {}): PdfStream {
  let body = data;
  if (opts.compress) {
    body = deflateSync(data);
    dict.set('Filter', new PdfName('FlateDecode'));
  }
  dict.set('Length', body.length);
  return new PdfStream(dict, body, 0, body.length);
}

/** Builds a dictionary from plain entries (null/undefined values are left out). */
export function dict(entries: Record<string, PdfObject | undefined>): PdfDict {
  const d = new PdfDict();
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== null) d.set(k, v);
  return d;
}

export function name(n: string): PdfName {
  return new PdfName(n);
}

export function array(items: PdfObject[]): PdfArray {
  return new PdfArray(items);
}

/** A shallow copy of a dictionary (entries shared), to change without touching the reader's cache. */
export function cloneDict(d: PdfDict): PdfDict {
  const c = new PdfDict();
  for (const [k, v] of d.map) c.set(k, v);
  return c;
}

export function cloneArray(a: PdfArray): PdfArray {
  return new PdfArray([...a.items]);
}
