/**
 * Tokenizer for PDF syntax (ISO 32000-1 7.2) over a byte array. It never throws on odd input:
 * real-world files contain stray delimiters, unterminated strings and junk, and a viewer-like
 * reader must skip over them. Deciding what is fatal is the parser's job.
 */

export type Token =
  | { type: 'number'; value: number; isInt: boolean; start: number }
  | { type: 'name'; value: string; start: number }
  | { type: 'string'; value: Uint8Array; hex: boolean; start: number }
  | { type: 'keyword'; value: string; start: number }
  | { type: 'delim'; value: '[' | ']' | '<<' | '>>' | '{' | '}' | ')' | '>'; start: number }
  | { type: 'eof'; start: number };

// Byte classes: 1 = whitespace, 2 = delimiter.
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

export function isWhitespace(c: number | undefined): boolean {
  return c !== undefined && CLASS[c] === 1;
}
export function isDelimiter(c: number | undefined): boolean {
  return c !== undefined && CLASS[c] === 2;
}
/** True for bytes that end a keyword/number/name (whitespace, delimiters, end of data). */
export function isBoundary(c: number | undefined): boolean {
  return c === undefined || CLASS[c] !== 0;
}

/** Hex strings whose plain digits are decoded natively (see readPlainHexString): not tiny, not huge. */
const PLAIN_HEX_MIN = 64;
const PLAIN_HEX_MAX = 4 * 1024 * 1024;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

export class Lexer {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    pos = 0,
    readonly end = buf.length,
  ) {
    this.pos = pos;
  }

  /** Skips whitespace and comments (a comment runs to the next CR or LF). */
  skipWhitespace(): void {
    const { buf, end } = this;
    let p = this.pos;
    while (p < end) {
      const c = buf[p]!;
      if (CLASS[c] === 1) p++;
      else if (c === 0x25 /* % */) {
        while (p < end && buf[p] !== 0x0a && buf[p] !== 0x0d) p++;
      } else break;
    }
    this.pos = p;
  }

  next(): Token {
    this.skipWhitespace();
    const { buf, end } = this;
    const start = this.pos;
    if (start >= end) return { type: 'eof', start };
    const c = buf[start]!;
    switch (c) {
      case 0x28: // (
        return { type: 'string', value: this.readLiteralString(), hex: false, start };
      case 0x3c: // <
        if (buf[start + 1] === 0x3c) {
          this.pos = start + 2;
          return { type: 'delim', value: '<<', start };
        }
        return { type: 'string', value: this.readHexString(), hex: true, start };
      case 0x3e: // >
        if (buf[start + 1] === 0x3e) {
          this.pos = start + 2;
          return { type: 'delim', value: '>>', start };
        }
        this.pos = start + 1;
        return { type: 'delim', value: '>', start };
      case 0x5b:
      case 0x5d:
      case 0x7b:
      case 0x7d:
      case 0x29:
        this.pos = start + 1;
        return { type: 'delim', value: String.fromCharCode(c) as '[' | ']' | '{' | '}' | ')', start };
      case 0x2f: // /
        return { type: 'name', value: this.readName(), start };
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return this.readNumber(start);
    let p = start;
    while (p < end && CLASS[buf[p]!] === 0) p++;
    this.pos = p;
    return { type: 'keyword', value: latin1(buf, start, p), start };
  }

  /** Numbers as viewers read them: "--5" is -5, "1.2.3" stops at the second dot, "-" alone is 0. */
  private readNumber(start: number): Token {
    const { buf, end } = this;
    let p = start;
    let negative = false;
    while (p < end && (buf[p] === 0x2b || buf[p] === 0x2d)) {
      if (buf[p] === 0x2d) negative = true;
      p++;
    }
    const digitsStart = p;
    let sawDot = false;
    while (p < end) {
      const d = buf[p]!;
      if (d >= 0x30 && d <= 0x39) p++;
      else if (d === 0x2e && !sawDot) {
        sawDot = true;
        p++;
      } else break;
    }
    this.pos = p; // whatever follows ("12.5.3", "0obj") is left for the next token
    const text = latin1(buf, digitsStart, p);
    let value = text === '' || text === '.' ? 0 : Number(text);
    if (!Number.isFinite(value)) value = 0;
    if (negative) value = -value;
    return { type: 'number', value: value === 0 ? 0 : value, isInt: !sawDot, start };
  }

  /** Name after "/", with #xx escapes decoded; kept as a latin1 string so it round-trips losslessly. */
  private readName(): string {
    const { buf, end } = this;
    let p = this.pos + 1;
    const bytes = new ByteSink();
    while (p < end) {
      const c = buf[p]!;
      if (CLASS[c] !== 0) break;
      if (c === 0x23 /* # */ && p + 2 < end) {
        const hi = hexValue(buf[p + 1] ?? 0);
        const lo = hexValue(buf[p + 2] ?? 0);
        if (hi >= 0 && lo >= 0) {
          bytes.push(hi * 16 + lo);
          p += 3;
          continue;
        }
      }
      bytes.push(c);
      p++;
    }
    this.pos = p;
    return Buffer.from(bytes.result()).toString('latin1');
  }

  /** Literal string with balanced parentheses and escapes; nesting is counted, not recursed. */
  private readLiteralString(): Uint8Array {
    const { buf, end } = this;
    let p = this.pos + 1;
    let depth = 1;
    // Fast path: no escapes and no CR, so the bytes can be copied as they are.
    for (let q = p; q < end; q++) {
      const c = buf[q]!;
      if (c === 0x5c || c === 0x0d) break;
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) {
        this.pos = q + 1;
        return buf.slice(p, q);
      }
    }
    depth = 1;
    const out = new ByteSink();
    while (p < end) {
      let c = buf[p++]!;
      if (c === 0x28) depth++;
      else if (c === 0x29) {
        if (--depth === 0) break;
      } else if (c === 0x5c /* \ */) {
        if (p >= end) break;
        c = buf[p++]!;
        switch (c) {
          case 0x6e:
            c = 0x0a;
            break; // \n
          case 0x72:
            c = 0x0d;
            break; // \r
          case 0x74:
            c = 0x09;
            break; // \t
          case 0x62:
            c = 0x08;
            break; // \b
          case 0x66:
            c = 0x0c;
            break; // \f
          case 0x0d: // line continuation: backslash + EOL produces nothing
            if (buf[p] === 0x0a) p++;
            continue;
          case 0x0a:
            continue;
          default:
            if (c >= 0x30 && c <= 0x37) {
              let v = c - 0x30;
              for (let i = 0; i < 2 && p < end && buf[p]! >= 0x30 && buf[p]! <= 0x37; i++) v = v * 8 + buf[p++]! - 0x30;
              c = v & 0xff;
            }
          // any other escaped byte stands for itself (the backslash is dropped)
        }
      } else if (c === 0x0d) {
        // An unescaped EOL inside a string reads as a single LF (7.3.4.2).
        if (buf[p] === 0x0a) p++;
        c = 0x0a;
      }
      out.push(c);
    }
    this.pos = p;
    return out.result();
  }

  /** Hex string: whitespace and junk ignored, an odd final digit is padded with 0. */
  private readHexString(): Uint8Array {
    return this.readPlainHexString() ?? this.readAnyHexString();
  }

  /**
   * The common case, natively: nothing but an even number of hex digits up to the ">" (a signature's
   * /Contents is 32-64 K of them, read byte by byte below at ~10x the cost). Node's hex decoder stops at
   * the first pair that is not two hex digits, so a result of exactly half the span proves the span was
   * plain; anything else (whitespace, junk, an odd digit, no ">", a huge span) takes the general reader.
   */
  private readPlainHexString(): Uint8Array | null {
    const { buf, end } = this;
    const from = this.pos + 1;
    const close = buf.subarray(from, Math.min(end, from + PLAIN_HEX_MAX + 1)).indexOf(0x3e);
    if (close < PLAIN_HEX_MIN || close % 2 !== 0) return null;
    const decoded = Buffer.from(latin1(buf, from, from + close), 'hex');
    if (decoded.length * 2 !== close) return null;
    this.pos = from + close + 1;
    return new Uint8Array(decoded); // a copy of its own (small decodes share Node's buffer pool)
  }

  private readAnyHexString(): Uint8Array {
    const { buf, end } = this;
    let p = this.pos + 1;
    const out = new ByteSink();
    let high = -1;
    while (p < end) {
      const c = buf[p++]!;
      if (c === 0x3e) break;
      const v = hexValue(c);
      if (v < 0) continue;
      if (high < 0) high = v;
      else {
        out.push(high * 16 + v);
        high = -1;
      }
    }
    if (high >= 0) out.push(high * 16);
    this.pos = p;
    return out.result();
  }
}

export function latin1(buf: Uint8Array, start: number, end: number): string {
  return Buffer.from(buf.buffer, buf.byteOffset + start, Math.max(0, end - start)).toString('latin1');
}

/** Collects bytes in a doubling Uint8Array: a huge string in a hostile file costs its size, not 8x. */
class ByteSink {
  private buf = new Uint8Array(32);
  private len = 0;
  push(byte: number): void {
    if (this.len === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.len++] = byte;
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
