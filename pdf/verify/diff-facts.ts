/**
 * Facts about one revision that the difference analysis needs to know what an object IS: the form
 * field tree (which objects are fields and widgets, with their fully qualified names), the pages with
 * their /Annots and /Contents, the signature dictionaries, the /DSS tree. Read once per revision.
 */
import type { PdfReader } from '../document.js';
import { tooComplex } from '../limits.js';
import { PdfArray, PdfDict, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';
import { getPages } from '../pages.js';

export interface FieldNode {
  /** Fully qualified name. */
  readonly name: string;
  /** Field type, inherited (Tx, Btn, Ch, Sig …). */
  readonly type: string | undefined;
  /** A terminal field (one with a value), not an intermediate node. */
  readonly terminal: boolean;
  /** This object is a widget annotation of the field (a kid widget, or merged with the field). */
  readonly widget: boolean;
  /** This object is a field dictionary (merged or not). */
  readonly field: boolean;
}

export interface SigDictInfo {
  readonly field: string;
  readonly docTimestamp: boolean;
}

export interface RevisionFacts {
  readonly reader: PdfReader;
  readonly catalogNum: number | undefined;
  readonly acroFormNum: number | undefined;
  /** Object number -> what it is in the form tree (a merged field/widget has both flags). */
  readonly fields: Map<number, FieldNode>;
  /** Signature dictionary object number -> the field whose /V it is. */
  readonly sigDicts: Map<number, SigDictInfo>;
  /** Page object number -> 0-based index. */
  readonly pages: Map<number, number>;
  /** Indirect /Annots array -> page index. */
  readonly annotsArrays: Map<number, number>;
  /** Annotation object -> page index. */
  readonly annots: Map<number, number>;
  /** Content stream (or indirect /Contents array) -> page index. */
  readonly contents: Map<number, number>;
  /** Objects of the /DSS tree (the dictionary, arrays, VRI entries, streams). */
  readonly dss: Set<number>;
}

const refNum = (obj: PdfObject): number | undefined => (obj instanceof PdfRef ? obj.num : undefined);

function walkFields(reader: PdfReader, acroForm: PdfDict | undefined, facts: RevisionFacts): void {
  const list = reader.getArray(acroForm, 'Fields');
  if (!list) return;
  type Frame = { node: PdfObject; parent: string; type: string | undefined; depth: number };
  const stack: Frame[] = list.items.map((node) => ({ node, parent: '', type: undefined, depth: 0 }));
  let visited = 0;
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (++visited > reader.limits.maxObjects || f.depth > reader.limits.maxDepth) {
      throw tooComplex('too many form fields');
    }
    const num = refNum(f.node);
    const d = reader.resolve(f.node);
    if (!(d instanceof PdfDict) || num === undefined || facts.fields.has(num)) continue;
    const t = reader.get(d, 'T');
    const name = t instanceof PdfString ? (f.parent ? `${f.parent}.${t.toText()}` : t.toText()) : f.parent;
    const type = reader.getName(d, 'FT') ?? f.type;
    const kids = reader.getArray(d, 'Kids')?.items ?? [];
    const isWidget = reader.getName(d, 'Subtype') === 'Widget' || d.has('Rect');
    const childFields: PdfObject[] = [];
    for (const kid of kids) {
      const k = reader.resolve(kid);
      const kidNum = refNum(kid);
      if (!(k instanceof PdfDict) || kidNum === undefined) continue;
      if (!k.has('T') && !k.has('Kids') && (reader.getName(k, 'Subtype') === 'Widget' || k.has('Rect'))) {
        if (!facts.fields.has(kidNum)) {
          facts.fields.set(kidNum, { name, type, terminal: false, widget: true, field: false });
        }
      } else childFields.push(kid);
    }
    const terminal = childFields.length === 0;
    facts.fields.set(num, { name, type, terminal, widget: isWidget, field: true });
    for (const kid of childFields) stack.push({ node: kid, parent: name, type, depth: f.depth + 1 });
    const v = d.get('V');
    if (terminal && type === 'Sig' && v instanceof PdfRef) {
      const sig = reader.resolve(v);
      const docTimestamp = sig instanceof PdfDict && reader.getName(sig, 'Type') === 'DocTimeStamp';
      facts.sigDicts.set(v.num, { field: name, docTimestamp });
    }
  }
}

function walkPages(reader: PdfReader, facts: RevisionFacts): void {
  for (const page of getPages(reader)) {
    if (page.ref) facts.pages.set(page.ref.num, page.index);
    const annots = page.dict.get('Annots');
    if (annots instanceof PdfRef) facts.annotsArrays.set(annots.num, page.index);
    for (const a of reader.getArray(page.dict, 'Annots')?.items ?? []) {
      if (a instanceof PdfRef && !facts.annots.has(a.num)) facts.annots.set(a.num, page.index);
    }
    const contents = page.dict.get('Contents');
    if (contents instanceof PdfRef) facts.contents.set(contents.num, page.index);
    const list = reader.resolve(contents);
    if (list instanceof PdfArray) {
      for (const c of list.items) if (c instanceof PdfRef) facts.contents.set(c.num, page.index);
    }
  }
}

/** Every indirect object of the /DSS tree (certificates, OCSP responses, CRLs, VRI). */
function walkDss(reader: PdfReader, facts: RevisionFacts): void {
  const root = reader.catalog.get('DSS');
  if (root instanceof PdfRef) facts.dss.add(root.num);
  const pending: PdfObject[] = [reader.resolve(root)];
  let budget = reader.limits.maxObjects;
  while (pending.length > 0 && budget-- > 0) {
    const obj = pending.pop()!;
    const items = obj instanceof PdfArray ? obj.items : obj instanceof PdfDict ? [...obj.map.values()] : [];
    for (const item of items) {
      if (item instanceof PdfRef) {
        if (facts.dss.has(item.num)) continue;
        facts.dss.add(item.num);
        const target = reader.getObject(item);
        if (!(target instanceof PdfStream)) pending.push(target);
      } else if (item instanceof PdfArray || item instanceof PdfDict) pending.push(item);
    }
  }
}

export function revisionFacts(reader: PdfReader): RevisionFacts {
  const acroFormObj = reader.catalog.get('AcroForm');
  const facts: RevisionFacts = {
    reader,
    catalogNum: refNum(reader.trailer.get('Root')),
    acroFormNum: refNum(acroFormObj),
    fields: new Map(),
    sigDicts: new Map(),
    pages: new Map(),
    annotsArrays: new Map(),
    annots: new Map(),
    contents: new Map(),
    dss: new Set(),
  };
  walkFields(reader, reader.getDict(reader.catalog, 'AcroForm'), facts);
  walkPages(reader, facts);
  walkDss(reader, facts);
  return facts;
}

/** Every reference inside a direct object (a stream: inside its dictionary), without following them. */
export function referencesIn(obj: PdfObject, out: number[] = []): number[] {
  const pending: PdfObject[] = [obj];
  while (pending.length > 0) {
    const o = pending.pop()!;
    if (o instanceof PdfRef) out.push(o.num);
    else if (o instanceof PdfArray) pending.push(...o.items);
    else if (o instanceof PdfDict) pending.push(...o.map.values());
    else if (o instanceof PdfStream) pending.push(o.dict);
  }
  return out;
}
