/**
 * Object parser (ISO 32000-1 7.3). Arrays and dictionaries are parsed with an explicit stack, never
 * recursion, so a file of 100,000 nested "[" cannot overflow the call stack; nesting beyond
 * `maxDepth` is refused with pdf_too_complex. Broken syntax is tolerated the way viewers tolerate it
 * (missing endobj, wrong /Length, stray delimiters); only unreadable data becomes invalid_pdf.
 */
import { Lexer, isWhitespace, type Token } from './lexer.js';
import { invalidPdf, tooComplex } from './limits.js';
import {
  PdfArray,
  PdfDict,
  PdfName,
  PdfRef,
  PdfStream,
  PdfString,
  isInteger,
  type IndirectObject,
  type PdfObject,
} from './objects.js';

export interface ParserOptions {
  readonly maxDepth: number;
  /** Most entries in one array or dictionary (a hostile file can hold millions of tiny ones). */
  readonly maxItems?: number;
  /** Resolves an indirect stream /Length; undefined when it cannot be known. */
  readonly resolveLength?: (ref: PdfRef) => number | undefined;
  /** Offset of the first "endstream" at or after `from`, or -1. Lets a reader index the file once. */
  readonly findEndstream?: (from: number) => number;
}

interface Frame {
  readonly dict: boolean;
  readonly items: PdfObject[];
}

// Keywords that can only appear outside a direct object: seeing one inside an unclosed array or
// dictionary means the object is broken, so the open containers are closed where they stand.
const STRUCTURAL = new Set(['obj', 'endobj', 'stream', 'endstream', 'xref', 'trailer', 'startxref']);

const ENDSTREAM = Buffer.from('endstream', 'latin1');

export class Parser {
  readonly lexer: Lexer;

  constructor(
    buf: Uint8Array,
    pos: number,
    private readonly options: ParserOptions,
  ) {
    this.lexer = new Lexer(buf, pos);
  }

  get pos(): number {
    return this.lexer.pos;
  }

  /** Parses one direct object; an "N G R" reference at top level is recognised by look-ahead. */
  parseObject(): PdfObject {
    const lexer = this.lexer;
    const maxItems = this.options.maxItems ?? Infinity;
    const stack: Frame[] = [];
    for (;;) {
      const tok = lexer.next();
      let value: PdfObject | undefined;
      switch (tok.type) {
        case 'eof':
          if (stack.length === 0) throw invalidPdf(`unexpected end of data at offset ${tok.start}`);
          value = closeAll(stack);
          break;
        case 'number':
          value = tok.value;
          if (stack.length === 0 && tok.isInt && tok.value >= 0) return this.maybeRef(tok.value);
          break;
        case 'name':
          value = new PdfName(tok.value);
          break;
        case 'string':
          value = new PdfString(tok.value, tok.hex);
          break;
        case 'delim':
          if (tok.value === '[' || tok.value === '<<') {
            if (stack.length >= this.options.maxDepth) {
              throw tooComplex(`objects nested deeper than ${this.options.maxDepth} levels`);
            }
            stack.push({ dict: tok.value === '<<', items: [] });
            continue;
          }
          if ((tok.value === ']' || tok.value === '>>') && stack.length > 0) {
            const top = stack[stack.length - 1]!;
            // A mismatched closer (e.g. "]" in a dict) is ignored, as viewers do.
            if (top.dict !== (tok.value === '>>')) continue;
            stack.pop();
            value = top.dict ? makeDict(top.items) : new PdfArray(top.items);
            break;
          }
          continue; // stray ")", ">", "{", "}" or a closer at top level: skip it
        case 'keyword':
          if (tok.value === 'true' || tok.value === 'false') value = tok.value === 'true';
          else if (tok.value === 'null') value = null;
          else if (tok.value === 'R' && stack.length > 0) {
            collapseRef(stack[stack.length - 1]!.items);
            continue;
          } else if (stack.length === 0 || STRUCTURAL.has(tok.value)) {
            // Not an object: leave the keyword for the caller ("1 0 obj endobj" is an empty object).
            lexer.pos = tok.start;
            value = stack.length === 0 ? null : closeAll(stack);
          } else continue; // unknown keyword inside a container: skip it
          break;
      }
      if (stack.length === 0) return value;
      const items = stack[stack.length - 1]!.items;
      if (items.length >= maxItems) throw tooComplex(`an array or dictionary with more than ${maxItems} entries`);
      items.push(value);
    }
  }

  private maybeRef(num: number): PdfObject {
    const lexer = this.lexer;
    const save = lexer.pos;
    const gen = lexer.next();
    if (gen.type === 'number' && gen.isInt && gen.value >= 0) {
      const r = lexer.next();
      if (r.type === 'keyword' && r.value === 'R') return new PdfRef(num, gen.value);
    }
    lexer.pos = save;
    return num;
  }

  /** Parses "N G obj <value> [stream ... endstream] [endobj]" at the current position. */
  parseIndirectObject(): IndirectObject {
    const lexer = this.lexer;
    const t1 = lexer.next();
    const offset = t1.start;
    const t2 = lexer.next();
    const t3 = lexer.next();
    if (!isUInt(t1) || !isUInt(t2) || t3.type !== 'keyword' || t3.value !== 'obj') {
      throw invalidPdf(`no object header at offset ${offset}`);
    }
    let value = this.parseObject();
    const after = lexer.pos;
    const tok = lexer.next();
    if (tok.type === 'keyword' && tok.value === 'stream' && value instanceof PdfDict) {
      value = this.readStreamBody(value, lexer.pos);
    } else {
      lexer.pos = after;
    }
    const end = lexer.pos;
    const tail = lexer.next();
    if (!(tail.type === 'keyword' && tail.value === 'endobj')) lexer.pos = end; // tolerate a missing endobj
    return { num: t1.value, gen: t2.value, value, offset };
  }

  /** Reads stream data after the "stream" keyword, trusting /Length only when "endstream" follows it. */
  private readStreamBody(dict: PdfDict, afterKeyword: number): PdfStream {
    const buf = this.lexer.buf;
    let start = afterKeyword;
    // The keyword is followed by CRLF or LF (some writers emit a lone CR or spaces first).
    while (buf[start] === 0x20 && (buf[start + 1] === 0x20 || buf[start + 1] === 0x0d || buf[start + 1] === 0x0a)) {
      start++;
    }
    if (buf[start] === 0x0d) start += buf[start + 1] === 0x0a ? 2 : 1;
    else if (buf[start] === 0x0a) start++;

    let length: number | undefined;
    const raw = dict.get('Length');
    if (typeof raw === 'number') length = raw;
    else if (raw instanceof PdfRef) length = this.options.resolveLength?.(raw);

    let end = -1;
    if (length !== undefined && Number.isInteger(length) && length >= 0 && start + length <= buf.length) {
      if (endstreamAt(buf, start + length)) end = start + length;
    }
    if (end < 0) {
      const found = this.options.findEndstream ? this.options.findEndstream(start) : indexOf(buf, ENDSTREAM, start);
      if (found >= 0) {
        end = found;
        // The EOL before "endstream" is not part of the data.
        if (end > start && buf[end - 1] === 0x0a) end--;
        if (end > start && buf[end - 1] === 0x0d) end--;
      } else {
        end = buf.length; // truncated file: take what is there
      }
    }
    const stream = new PdfStream(dict, buf, start, end);
    const kw = end < buf.length ? skipToEndstream(buf, end) : -1;
    this.lexer.pos = kw >= 0 ? kw + ENDSTREAM.length : end;
    return stream;
  }
}

function isUInt(t: Token): t is Extract<Token, { type: 'number' }> {
  return t.type === 'number' && t.isInt && t.value >= 0;
}

function collapseRef(items: PdfObject[]): void {
  const n = items.length;
  if (n < 2) return;
  const num = items[n - 2]!;
  const gen = items[n - 1]!;
  if (isInteger(num) && isInteger(gen) && num >= 0 && gen >= 0) {
    items.length = n - 2;
    items.push(new PdfRef(num, gen));
  }
}

function makeDict(items: PdfObject[]): PdfDict {
  const dict = new PdfDict();
  for (let i = 0; i < items.length; i++) {
    const key = items[i];
    if (!(key instanceof PdfName)) continue; // junk where a key should be: skip it
    dict.set(key.name, items[i + 1] ?? null);
    i++;
  }
  return dict;
}

/** Closes every open container of a truncated object and returns the outermost one. */
function closeAll(stack: Frame[]): PdfObject {
  let value: PdfObject | undefined;
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (value !== undefined) top.items.push(value);
    value = top.dict ? makeDict(top.items) : new PdfArray(top.items);
  }
  return value ?? null;
}

/** True if only whitespace separates `pos` from an "endstream" keyword. */
function endstreamAt(buf: Uint8Array, pos: number): boolean {
  let p = pos;
  while (p < buf.length && isWhitespace(buf[p])) p++;
  return startsWith(buf, p, ENDSTREAM);
}

function skipToEndstream(buf: Uint8Array, pos: number): number {
  let p = pos;
  while (p < buf.length && isWhitespace(buf[p])) p++;
  return startsWith(buf, p, ENDSTREAM) ? p : -1;
}

export function startsWith(buf: Uint8Array, pos: number, needle: Uint8Array): boolean {
  if (pos < 0 || pos + needle.length > buf.length) return false;
  for (let i = 0; i < needle.length; i++) if (buf[pos + i] !== needle[i]) return false;
  return true;
}

export function indexOf(buf: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).indexOf(needle, from);
}

/**
 * A finder for "endstream" that indexes the buffer on first use, so that many streams with a
 * wrong /Length cost one pass over the file instead of one pass each.
 */
export function endstreamFinder(buf: Uint8Array): (from: number) => number {
  let positions: number[] | undefined;
  return (from) => {
    if (!positions) {
      positions = [];
      const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
      for (let i = b.indexOf(ENDSTREAM); i >= 0; i = b.indexOf(ENDSTREAM, i + ENDSTREAM.length)) positions.push(i);
    }
    let lo = 0;
    let hi = positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (positions[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < positions.length ? positions[lo]! : -1;
  };
}
