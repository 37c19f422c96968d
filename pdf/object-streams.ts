/**
 * Object streams (ISO 32000-1 7.5.7): a stream holding N objects, with a header of
 * "objectNumber offset" pairs and the objects after /First. Streams cannot live inside them.
 */
import { Lexer, isWhitespace } from './lexer.js';
import { isFatal } from './limits.js';
import { PdfStream, type PdfObject } from './objects.js';
import { Parser, type ParserOptions } from './parser.js';

export interface ObjectStreamData {
  readonly data: Uint8Array;
  readonly first: number;
  /** [objectNumber, offsetFromFirst] pairs in stream order. */
  readonly pairs: readonly (readonly [number, number])[];
}

/**
 * Reads the header of decoded object-stream data; a damaged header just yields fewer pairs. The objects
 * themselves are parsed one by one when asked for (objectStreamMember), never all at once.
 */
export function indexObjectStream(data: Uint8Array, n: number, first: number): ObjectStreamData {
  return { data, first, pairs: scanHeader(data, n, first) ?? lexHeader(data, n, first) };
}

/**
 * The header as writers write it, unsigned integers between whitespace, read byte by byte without tokens
 * (issue 30: an object stream holds hundreds of pairs). undefined when it holds anything else (a comment, a
 * sign, a fraction): the lexer reads it then, as before.
 */
function scanHeader(data: Uint8Array, n: number, first: number): [number, number][] | undefined {
  const end = Math.min(first, data.length);
  const pairs: [number, number][] = [];
  let p = 0;
  const integer = (): number | undefined => {
    while (p < end && isWhitespace(data[p])) p++;
    const start = p;
    let v = 0;
    while (p < end && data[p]! >= 0x30 && data[p]! <= 0x39) v = v * 10 + data[p++]! - 0x30;
    if (p === start || (p < end && !isWhitespace(data[p]))) return undefined;
    return v;
  };
  for (let i = 0; i < n; i++) {
    const num = integer();
    const offset = integer();
    if (num === undefined || offset === undefined) return p >= end && pairs.length === i ? pairs : undefined;
    pairs.push([num, offset]);
  }
  return pairs;
}

function lexHeader(data: Uint8Array, n: number, first: number): [number, number][] {
  const lexer = new Lexer(data, 0, Math.min(first, data.length));
  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const a = lexer.next();
    const b = lexer.next();
    if (a.type !== 'number' || b.type !== 'number') break;
    pairs.push([a.value, b.value]);
  }
  return pairs;
}

/**
 * The object `num` stored at position `index` (the xref's claim); if the header disagrees, the
 * object is looked up by number. undefined when it is not there or does not parse.
 */
export function objectStreamMember(
  os: ObjectStreamData,
  num: number,
  index: number,
  parser: ParserOptions,
): PdfObject | undefined {
  let pair = os.pairs[index];
  if (!pair || pair[0] !== num) pair = os.pairs.find(([n]) => n === num);
  if (!pair) return undefined;
  try {
    const value = new Parser(os.data, os.first + pair[1], parser).parseObject();
    return value instanceof PdfStream ? null : value;
  } catch (err) {
    if (isFatal(err)) throw err;
    return undefined;
  }
}
