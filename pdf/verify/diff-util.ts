/** Comparing and describing PDF objects, for the difference analysis. */
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';

export function dictOf(obj: PdfObject): PdfDict | undefined {
  return obj instanceof PdfStream ? obj.dict : obj instanceof PdfDict ? obj : undefined;
}

/** Deep equality of two direct objects (references compare by number, not by target). */
export function sameObject(a: PdfObject, b: PdfObject): boolean {
  if (a === b) return true;
  if (a instanceof PdfRef && b instanceof PdfRef) return a.num === b.num && a.gen === b.gen;
  if (a instanceof PdfName && b instanceof PdfName) return a.name === b.name;
  if (a instanceof PdfString && b instanceof PdfString) return Buffer.from(a.bytes).equals(Buffer.from(b.bytes));
  if (a instanceof PdfArray && b instanceof PdfArray) {
    return a.items.length === b.items.length && a.items.every((x, i) => sameObject(x, b.items[i]!));
  }
  if (a instanceof PdfDict && b instanceof PdfDict) {
    return a.size === b.size && [...a.keys()].every((k) => b.has(k) && sameObject(a.get(k), b.get(k)));
  }
  if (a instanceof PdfStream && b instanceof PdfStream) {
    return sameObject(a.dict, b.dict) && Buffer.from(a.raw()).equals(Buffer.from(b.raw()));
  }
  return false;
}

export function changedKeys(before: PdfDict | undefined, after: PdfDict | undefined): { key: string; how: string }[] {
  const names = new Set([...(before?.keys() ?? []), ...(after?.keys() ?? [])]);
  return [...names]
    .filter((k) => !sameObject(before?.get(k) ?? null, after?.get(k) ?? null))
    .map((key) => ({ key, how: !before?.has(key) ? 'added' : !after?.has(key) ? 'removed' : 'changed' }));
}

/** "/XObject /Form", "/Font /Type1", "stream": what an object is, for reasons. */
export function describe(obj: PdfObject): string {
  const d = dictOf(obj);
  const names = ['Type', 'Subtype']
    .map((k) => d?.get(k))
    .filter((n): n is PdfName => n instanceof PdfName)
    .map((n) => `/${n.name}`);
  if (names.length > 0) return names.join(' ');
  return obj instanceof PdfStream
    ? 'stream'
    : obj instanceof PdfDict
      ? 'dictionary'
      : obj instanceof PdfArray
        ? 'array'
        : 'object';
}
