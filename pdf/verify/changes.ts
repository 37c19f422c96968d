/**
 * What changed after a signed revision? Compares the cross-reference entries of the signed prefix
 * with those of the whole file and sorts every added or changed object into a kind of change:
 * structure (xref/object streams), signatures and form filling, DSS and document timestamps, or
 * anything else (which breaks the "nothing but form filling and signatures" promise).
 */
import { PdfReader } from '../document.js';
import type { XrefEntry } from '../xref.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';

export type ChangeKind = 'none' | 'dss_and_timestamps' | 'form_fill_and_signatures' | 'other';

const ORDER: readonly ChangeKind[] = ['none', 'dss_and_timestamps', 'form_fill_and_signatures', 'other'];

export function worstChange(a: ChangeKind, b: ChangeKind): ChangeKind {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

export interface ChangedObject {
  readonly num: number;
  readonly kind: Exclude<ChangeKind, 'none'> | 'structure';
  readonly what: string;
}

export interface ChangeReport {
  readonly kind: ChangeKind;
  readonly objects: readonly ChangedObject[];
}

const FORM_CATALOG_KEYS = new Set(['AcroForm']);
// /Extensions declares the ETSI (ESIC) extension level that goes with a /DSS.
const DSS_CATALOG_KEYS = new Set(['DSS', 'Extensions']);
const ANNOTATION_PAGE_KEYS = new Set(['Annots']);

function typeName(reader: PdfReader, obj: PdfObject): string | undefined {
  const dict = obj instanceof PdfStream ? obj.dict : obj instanceof PdfDict ? obj : undefined;
  return dict ? reader.getName(dict, 'Type') ?? (dict.has('FT') ? 'Field' : undefined) : undefined;
}

function dictOf(obj: PdfObject): PdfDict | undefined {
  return obj instanceof PdfStream ? obj.dict : obj instanceof PdfDict ? obj : undefined;
}

/** Deep equality of two direct objects (references compare by number, not by target). */
export function sameObject(a: PdfObject, b: PdfObject): boolean {
  if (a === b) return true;
  if (a instanceof PdfRef && b instanceof PdfRef) return a.num === b.num && a.gen === b.gen;
  if (a instanceof PdfName && b instanceof PdfName) return a.name === b.name;
  if (a instanceof PdfString && b instanceof PdfString) return Buffer.from(a.bytes).equals(Buffer.from(b.bytes));
  if (a instanceof PdfArray && b instanceof PdfArray) return a.items.length === b.items.length && a.items.every((x, i) => sameObject(x, b.items[i]!));
  if (a instanceof PdfDict && b instanceof PdfDict) return a.size === b.size && [...a.keys()].every((k) => b.has(k) && sameObject(a.get(k), b.get(k)));
  if (a instanceof PdfStream && b instanceof PdfStream) return sameObject(a.dict, b.dict) && Buffer.from(a.raw()).equals(Buffer.from(b.raw()));
  return false;
}

/** Keys whose values differ between two versions of a dictionary. */
function changedKeys(before: PdfDict | undefined, after: PdfDict): Set<string> {
  const names = new Set([...(before ? [...before.keys()] : []), ...after.keys()]);
  return new Set([...names].filter((key) => !sameObject(before?.get(key) ?? null, after.get(key))));
}

/** References reachable from the DSS dictionary: certificates, OCSP responses, CRLs, VRI entries. */
function dssReferences(reader: PdfReader): Set<number> {
  const out = new Set<number>();
  const dssRef = reader.catalog.get('DSS');
  if (dssRef instanceof PdfRef) out.add(dssRef.num);
  const pending: PdfObject[] = [reader.resolve(dssRef ?? null)];
  let budget = 100_000;
  while (pending.length > 0 && budget-- > 0) {
    const obj = pending.pop()!;
    const items = obj instanceof PdfArray ? obj.items : obj instanceof PdfDict ? [...obj.map.values()] : [];
    for (const item of items) {
      if (item instanceof PdfRef) {
        if (out.has(item.num)) continue;
        out.add(item.num);
        const target = reader.getObject(item);
        if (!(target instanceof PdfStream)) pending.push(target);
      } else if (item instanceof PdfArray || item instanceof PdfDict) pending.push(item);
    }
  }
  return out;
}

function isFormArray(reader: PdfReader, array: PdfArray): boolean {
  return array.items.every((item) => {
    const target = item instanceof PdfRef ? reader.getObject(item) : item;
    const dict = dictOf(target);
    if (!dict) return false;
    const subtype = reader.getName(dict, 'Subtype');
    return dict.has('FT') || dict.has('T') || subtype !== undefined || dict.has('Parent');
  });
}

function classify(before: PdfReader, after: PdfReader, num: number, dss: Set<number>): ChangedObject {
  const ref = new PdfRef(num, 0);
  const entry = after.xref.entries.get(num);
  const obj = entry?.type === 'offset' || entry?.type === 'compressed' ? after.getObject(new PdfRef(num, entry.type === 'offset' ? entry.gen : 0)) : null;
  const type = obj === null ? undefined : typeName(after, obj);
  const dict = obj === null ? undefined : dictOf(obj);
  const verdict = (kind: ChangedObject['kind'], what: string): ChangedObject => ({ num, kind, what });

  if (type === 'XRef' || type === 'ObjStm') return verdict('structure', type);
  if (type === 'DocTimeStamp' || dss.has(num)) return verdict('dss_and_timestamps', type ?? 'DSS data');
  if (type === 'Sig') return verdict('form_fill_and_signatures', 'signature');
  if (type === 'Field' || (dict && (dict.has('T') || after.getName(dict, 'Subtype') === 'Widget'))) return verdict('form_fill_and_signatures', 'form field or widget');
  if (type === 'XObject' || type === 'Font' || type === 'FontDescriptor' || type === 'Encoding') return verdict('form_fill_and_signatures', `appearance (${type})`);
  if (dict && after.catalog.get('AcroForm') instanceof PdfRef && (after.catalog.get('AcroForm') as PdfRef).num === num) return verdict('form_fill_and_signatures', 'AcroForm');
  if (type === 'Catalog' && dict) {
    const keys = changedKeys(before.catalog, dict);
    if ([...keys].every((k) => DSS_CATALOG_KEYS.has(k))) return verdict('dss_and_timestamps', 'catalog /DSS');
    if ([...keys].every((k) => FORM_CATALOG_KEYS.has(k) || DSS_CATALOG_KEYS.has(k))) return verdict('form_fill_and_signatures', 'catalog /AcroForm');
    return verdict('other', `catalog keys ${[...keys].join(', ')}`);
  }
  if (type === 'Page' && dict) {
    const old = before.xref.entries.has(num) ? dictOf(before.getObject(ref)) : undefined;
    const keys = changedKeys(old, dict);
    if ([...keys].every((k) => ANNOTATION_PAGE_KEYS.has(k))) return verdict('form_fill_and_signatures', 'page /Annots');
    return verdict('other', `page keys ${[...keys].join(', ')}`);
  }
  if (obj instanceof PdfArray && isFormArray(after, obj)) return verdict('form_fill_and_signatures', 'array of fields or annotations');
  const info = after.trailer.get('Info');
  if (info instanceof PdfRef && info.num === num) return verdict('form_fill_and_signatures', 'document information');
  if (type === 'Metadata') return verdict('form_fill_and_signatures', 'XMP metadata');
  if (obj instanceof PdfStream && !type) {
    // A new untyped stream (image data of an appearance, say) is harmless on its own: whatever uses it
    // is classified too. A changed existing one (page content, a shared image) is not.
    if (before.xref.entries.get(num)?.type !== undefined && before.xref.entries.get(num)?.type !== 'free') return verdict('other', 'existing stream rewritten');
    return verdict('form_fill_and_signatures', 'stream');
  }
  return verdict('other', type ? `/Type /${type}` : obj === null ? 'freed object' : 'object');
}

function sameEntry(a: XrefEntry, b: XrefEntry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset && a.gen === b.gen;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNum === b.streamNum && a.index === b.index;
  return true;
}

function diffRevision(bytes: Uint8Array, from: number, to: number, afterAll: PdfReader): ChangedObject[] {
  const before = PdfReader.open(bytes.subarray(0, from));
  const after = to >= bytes.length ? afterAll : PdfReader.open(bytes.subarray(0, to));
  const dss = dssReferences(after);
  const objects: ChangedObject[] = [];
  for (const [num, entry] of after.xref.entries) {
    const old = before.xref.entries.get(num);
    if (old && sameEntry(old, entry)) continue;
    if (entry.type === 'free' && (!old || old.type === 'free')) continue;
    objects.push(classify(before, after, num, dss));
  }
  // A revision that adds a document timestamp adds its field, widget and appearance too: all of that
  // is part of the timestamp, not form filling.
  if (objects.some((o) => o.what === 'DocTimeStamp')) {
    return objects.map((o) => (o.kind === 'form_fill_and_signatures' ? { ...o, kind: 'dss_and_timestamps' } : o));
  }
  return objects;
}

/** Classifies everything the file adds after `signedLength` bytes, revision by revision. */
export function changesAfter(bytes: Uint8Array, signedLength: number, after: PdfReader): ChangeReport {
  if (signedLength >= bytes.length) return { kind: 'none', objects: [] };
  const ends = [...new Set([...after.revisions.map((r) => r.end), bytes.length])].filter((end) => end > signedLength).sort((a, b) => a - b);
  const objects: ChangedObject[] = [];
  let from = signedLength;
  for (const end of ends) {
    if (bytes.subarray(from, end).every((b) => b <= 0x20)) {
      from = end;
      continue;
    }
    objects.push(...diffRevision(bytes, from, end, after));
    from = end;
  }
  let kind: ChangeKind = 'none';
  for (const o of objects) if (o.kind !== 'structure') kind = worstChange(kind, o.kind);
  if (kind === 'none' && objects.length === 0 && bytes.subarray(signedLength).some((b) => b > 0x20)) kind = 'other';
  return { kind, objects };
}
