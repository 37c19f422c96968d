/**
 * The shape of a signature dictionary a revision adds (universal signature forgery and signature
 * wrapping, CCS 2019): /ByteRange four integers from byte 0 whose gap is exactly the hex /Contents
 * string and that reach the end of the revision; /Contents that very string, and not empty.
 */
import type { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfString } from '../objects.js';
import { byteRangeProblems } from './signatures.js';

export function signatureShapeProblems(reader: PdfReader, sig: PdfDict): string[] {
  const range = sig.get('ByteRange');
  if (!(range instanceof PdfArray) || range.items.length !== 4 || range.items.some((n) => typeof n !== 'number')) {
    return ['no usable /ByteRange (four direct integers)'];
  }
  const numbers = range.items as number[];
  const problems = byteRangeProblems(reader.bytes, numbers);
  if (problems.length > 0) return problems;
  const [, a, b, c] = numbers as [number, number, number, number];
  if (!reader.bytes.subarray(b + c).every((x) => x <= 0x20)) {
    problems.push('the /ByteRange does not reach the end of its revision');
  }
  const contents = sig.get('Contents');
  if (!(contents instanceof PdfString)) problems.push('/Contents is not a direct string');
  else if (contents.bytes.length * 2 !== b - a - 2) problems.push('/Contents is not the string in the /ByteRange gap');
  else if (contents.bytes.every((x) => x === 0)) problems.push('/Contents is empty (no signature in it)');
  return problems;
}
