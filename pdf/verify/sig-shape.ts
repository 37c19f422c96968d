/**
 * The shape of a signature dictionary a revision adds (universal signature forgery and signature
 * wrapping, CCS 2019): /ByteRange four integers from byte 0 whose gap is exactly the hex /Contents
 * string and that reach the end of the revision; /Contents that very string, and not empty; and a
 * /Filter and /SubFilter every validator checks the same way (ISO 32000-2 12.8.3, as pyHanko accepts them).
 */
import type { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfString } from '../objects.js';
import { onlyWhitespace } from '../xref-repair.js';
import { byteRangeProblems } from './signatures.js';

/** The /SubFilter values a signature (or a document timestamp) may carry: detached CMS, or an RFC 3161 token. */
const SIGNATURE_SUBFILTERS = ['ETSI.CAdES.detached', 'adbe.pkcs7.detached'];
const TIMESTAMP_SUBFILTERS = ['ETSI.RFC3161'];

/**
 * Why `subFilter` is not one a validator recognises for this kind of signature (adbe.x509.rsa_sha1, adbe.pkcs7.sha1,
 * a made-up name, none at all), or null.
 */
export function subFilterProblem(subFilter: string | null, docTimestamp: boolean): string | null {
  const allowed = docTimestamp ? TIMESTAMP_SUBFILTERS : SIGNATURE_SUBFILTERS;
  if (subFilter !== null && allowed.includes(subFilter)) return null;
  const found = subFilter === null ? 'no /SubFilter' : `/SubFilter /${subFilter}`;
  const wanted = allowed.map((f) => `/${f}`).join(' or ');
  return `${found} is not a recognised ${docTimestamp ? 'document timestamp' : 'signature'} format (${wanted} expected)`;
}

/** The /Filter and /SubFilter of a signature dictionary a revision adds: /Adobe.PPKLite and a recognised format. */
function filterProblems(sig: PdfDict): string[] {
  const name = (key: string): string | null => {
    const value = sig.get(key);
    return value instanceof PdfName ? value.name : null;
  };
  const docTimestamp = name('Type') === 'DocTimeStamp';
  const problems: string[] = [];
  const filter = name('Filter');
  if (filter !== 'Adobe.PPKLite') {
    problems.push(`${filter === null ? 'no /Filter' : `/Filter /${filter}`} (/Adobe.PPKLite expected)`);
  }
  const subFilter = subFilterProblem(name('SubFilter'), docTimestamp);
  if (subFilter) problems.push(subFilter);
  return problems;
}

export function signatureShapeProblems(reader: PdfReader, sig: PdfDict): string[] {
  const range = sig.get('ByteRange');
  if (!(range instanceof PdfArray) || range.items.length !== 4 || range.items.some((n) => typeof n !== 'number')) {
    return ['no usable /ByteRange (four direct integers)'];
  }
  const numbers = range.items as number[];
  const problems = byteRangeProblems(reader.bytes, numbers);
  if (problems.length > 0) return problems;
  problems.push(...filterProblems(sig));
  const [, a, b, c] = numbers as [number, number, number, number];
  if (!onlyWhitespace(reader.bytes.subarray(b + c))) {
    problems.push('the /ByteRange does not reach the end of its revision');
  }
  const contents = sig.get('Contents');
  if (!(contents instanceof PdfString)) problems.push('/Contents is not a direct string');
  else if (contents.bytes.length * 2 !== b - a - 2) problems.push('/Contents is not the string in the /ByteRange gap');
  else if (contents.bytes.every((x) => x === 0)) problems.push('/Contents is empty (no signature in it)');
  return problems;
}
