/**
 * Object streams (ISO 32000-1 7.5.7): a stream holding N objects, with a header of
 * "objectNumber offset" pairs and the objects after /First. Streams cannot live inside them.
 */
import { Lexer } from './lexer.js';
import { isFatal } from './limits.js';
import { PdfStream, type PdfObject } from './objects.js';
import { Parser, type ParserOptions } from './parser.js';

export interface ObjectStreamData {
  readonly data: Uint8Array;
  readonly first: number;
  /** [objectNumber, offsetFromFirst] pairs in stream order. */
  readonly pairs: readonly (readonly [number, number])[];
}

/** Reads the header of decoded object-stream data; a damaged header just yields fewer pairs. */
export function indexObjectStream(data: Uint8Array, n: number, first: number): ObjectStreamData {
  const lexer = new Lexer(data, 0, Math.min(first, data.length));
  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const a = lexer.next();
    const b = lexer.next();
    if (a.type !== 'number' || b.type !== 'number') break;
    pairs.push([a.value, b.value]);
  }
  return { data, first, pairs };
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
