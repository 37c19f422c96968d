/** Finds the signature dictionaries of a PDF (signature fields with a /V) and checks their /ByteRange. */
import type { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString } from '../objects.js';
import { listSignatureFields, type SignatureFieldInfo } from '../acroform.js';
import { PageLookup } from '../page-lookup.js';

export interface FoundSignature {
  readonly fieldName: string;
  /** The signature field's dictionary (its /Lock, for field-locks.ts). */
  readonly field: PdfDict;
  readonly dict: PdfDict;
  readonly type: string;
  readonly subFilter: string | null;
  readonly byteRange: readonly number[];
  readonly contents: Uint8Array;
  readonly signingTime: string | null;
  readonly name: string | null;
  readonly reason: string | null;
  readonly location: string | null;
  /** Problems with the ByteRange itself: gaps, overlap, a range past the end of the file. */
  readonly problems: string[];
  /** DocMDP permission when this is a certification signature (/Reference … /TransformMethod /DocMDP). */
  readonly docMdp: number | null;
}

function text(reader: PdfReader, dict: PdfDict, key: string): string | null {
  const value = reader.resolve(dict.get(key));
  return value instanceof PdfString ? value.toText() : null;
}

function docMdpOf(reader: PdfReader, sig: PdfDict): number | null {
  const refs = reader.resolve(sig.get('Reference'));
  if (!(refs instanceof PdfArray)) return null;
  for (const item of refs.items) {
    const ref = reader.resolve(item);
    if (!(ref instanceof PdfDict) || reader.getName(ref, 'TransformMethod') !== 'DocMDP') continue;
    const params = reader.getDict(ref, 'TransformParams');
    return reader.getNumber(params, 'P') ?? 2;
  }
  return null;
}

/** Checks that the ByteRange is [0 a b c] with the gap exactly the hex /Contents string. */
export function byteRangeProblems(bytes: Uint8Array, range: readonly number[]): string[] {
  if (range.length !== 4 || range.some((n) => !Number.isInteger(n) || n < 0)) {
    return ['the /ByteRange is not four non-negative integers'];
  }
  const [start, firstLength, gapEnd, secondLength] = range as [number, number, number, number];
  const problems: string[] = [];
  if (start !== 0) problems.push('the /ByteRange does not start at byte 0');
  if (gapEnd <= firstLength) problems.push('the /ByteRange ranges overlap');
  if (gapEnd + secondLength > bytes.length) problems.push('the /ByteRange reaches past the end of the file');
  if (bytes[firstLength] !== 0x3c || bytes[gapEnd - 1] !== 0x3e) {
    problems.push('the gap of the /ByteRange is not exactly the /Contents hex string');
  } else if (!/^[0-9A-Fa-f\s]*$/.test(Buffer.from(bytes.subarray(firstLength + 1, gapEnd - 1)).toString('latin1'))) {
    problems.push('the /Contents gap holds more than hex digits');
  }
  return problems;
}

/**
 * The bytes a /ByteRange names, pair by pair (offset, length), when every pair lies inside the file; else null. Also
 * for a malformed range (not four numbers, a gap that is not /Contents): its digest is then checked all the same, so
 * that a signature over odd ranges is reported as what it is (intact, but not covering the document) and not as
 * tampered.
 */
export function byteRangeParts(bytes: Uint8Array, range: readonly number[]): Uint8Array[] | null {
  if (range.length === 0 || range.length % 2 !== 0) return null;
  const parts: Uint8Array[] = [];
  for (let i = 0; i < range.length; i += 2) {
    const [offset = -1, length = -1] = [range[i], range[i + 1]];
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0) return null;
    if (offset + length > bytes.length) return null;
    parts.push(bytes.subarray(offset, offset + length));
  }
  return parts;
}

export function findSignatures(reader: PdfReader): FoundSignature[] {
  const fields: SignatureFieldInfo[] = listSignatureFields(reader, new PageLookup(reader));
  const found: FoundSignature[] = [];
  for (const field of fields) {
    if (!field.signed || !field.ref) continue;
    const fieldDict = reader.getObject(new PdfRef(field.ref.num, field.ref.gen));
    if (!(fieldDict instanceof PdfDict)) continue;
    const sig = reader.resolve(fieldDict.get('V'));
    if (!(sig instanceof PdfDict)) continue;
    const rangeObj = reader.resolve(sig.get('ByteRange'));
    const range =
      rangeObj instanceof PdfArray
        ? rangeObj.items.map((n) => reader.resolve(n)).filter((n): n is number => typeof n === 'number')
        : [];
    const contents = reader.resolve(sig.get('Contents'));
    const subFilter = reader.resolve(sig.get('SubFilter'));
    found.push({
      fieldName: field.name,
      field: fieldDict,
      dict: sig,
      type: reader.getName(sig, 'Type') ?? 'Sig',
      subFilter: subFilter instanceof PdfName ? subFilter.name : null,
      byteRange: range,
      contents: contents instanceof PdfString ? contents.bytes : new Uint8Array(0),
      signingTime: text(reader, sig, 'M'),
      name: text(reader, sig, 'Name'),
      reason: text(reader, sig, 'Reason'),
      location: text(reader, sig, 'Location'),
      problems: byteRangeProblems(reader.bytes, range),
      docMdp: docMdpOf(reader, sig),
    });
  }
  // Order of signing: by where their signed ranges end.
  return found.sort(
    (a, b) => (a.byteRange[2] ?? 0) + (a.byteRange[3] ?? 0) - ((b.byteRange[2] ?? 0) + (b.byteRange[3] ?? 0)),
  );
}
