/**
 * Signature fields of the interactive form (ISO 32000-1 12.7, 12.8) and the DocMDP certification
 * level. Used to sign into an existing empty field and to refuse signing a P=1 certified document
 * before a token PIN is ever asked for.
 */
import type { PdfReader } from './document.js';
import { userSpaceRectToView, type Rect } from './geometry.js';
import { tooComplex } from './limits.js';
import { PdfDict, PdfRef, PdfString, type PdfObject } from './objects.js';
import { PageLookup } from './page-lookup.js';
import { readBox, type Box, type PageInfo } from './pages.js';

export interface ObjectId {
  readonly num: number;
  readonly gen: number;
}

export interface SignatureWidgetInfo {
  /** 1-based page number, or null when the widget is on no page. */
  readonly pageNumber: number | null;
  /** The widget rectangle in Mohar's view convention (top-left of the displayed page). */
  readonly rect: Rect | null;
  /** The raw /Rect in default user space, normalized. */
  readonly userRect: Box | null;
  readonly ref: ObjectId | null;
}

export interface SignatureFieldInfo {
  /** Fully qualified name: the partial names (/T) from the root down, joined by ".". */
  readonly name: string;
  /** True when the field has a value (/V): it is already signed. */
  readonly signed: boolean;
  /** Page and rectangle of the first widget (null when the field has no widget on a page). */
  readonly pageNumber: number | null;
  readonly rect: Rect | null;
  readonly widgets: readonly SignatureWidgetInfo[];
  readonly ref: ObjectId | null;
}

interface Frame {
  readonly node: PdfObject;
  readonly parentName: string;
  readonly fieldType: string | undefined;
  readonly depth: number;
}

/**
 * Every signature field with its widgets' pages. `pages` may be a PageLookup: the page tree is then walked only
 * when a signature field's widget has to be placed, not for a document without signature fields.
 */
export function listSignatureFields(reader: PdfReader, pages: readonly PageInfo[] | PageLookup): SignatureFieldInfo[] {
  const acroForm = reader.getDict(reader.catalog, 'AcroForm');
  const fields = reader.getArray(acroForm, 'Fields');
  if (!fields) return [];
  const locate = pageLocator(reader, pages);
  const out: SignatureFieldInfo[] = [];
  const seen = new Set<string | PdfDict>();
  const stack: Frame[] = fields.items
    .map((node) => ({ node, parentName: '', fieldType: undefined, depth: 0 }))
    .reverse();
  let visited = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { parentName, fieldType, depth } = frame;
    const node = lastRef(reader, frame.node);
    if (++visited > reader.limits.maxObjects) throw tooComplex('too many form fields');
    if (depth > reader.limits.maxDepth) {
      throw tooComplex(`form fields nested deeper than ${reader.limits.maxDepth} levels`);
    }
    const dict = reader.resolve(node);
    if (!(dict instanceof PdfDict)) continue;
    const key = node instanceof PdfRef ? node.key : dict;
    if (seen.has(key)) continue; // a field listed twice or a /Kids cycle
    seen.add(key);
    const partial = reader.get(dict, 'T');
    const name =
      partial instanceof PdfString ? (parentName ? `${parentName}.${partial.toText()}` : partial.toText()) : parentName;
    const type = reader.getName(dict, 'FT') ?? fieldType;
    const kids = reader.getArray(dict, 'Kids')?.items ?? [];
    const childFields: PdfObject[] = [];
    const widgets: PdfObject[] = isWidget(reader, dict) ? [node] : [];
    for (const kid of kids) {
      const k = reader.resolve(kid);
      if (!(k instanceof PdfDict)) continue;
      if (!k.has('T') && !k.has('Kids') && isWidget(reader, k)) widgets.push(lastRef(reader, kid));
      else childFields.push(kid);
    }
    for (let i = childFields.length - 1; i >= 0; i--) {
      stack.push({ node: childFields[i]!, parentName: name, fieldType: type, depth: depth + 1 });
    }
    if (childFields.length > 0 || type !== 'Sig') continue;
    const widgetInfo = widgets.map((w) => describeWidget(reader, w, locate));
    out.push({
      name,
      signed: reader.get(dict, 'V') !== null,
      pageNumber: widgetInfo[0]?.pageNumber ?? null,
      rect: widgetInfo[0]?.rect ?? null,
      widgets: widgetInfo,
      ref: node instanceof PdfRef ? { num: node.num, gen: node.gen } : null,
    });
  }
  return out;
}

/** The reference that points at the object itself (a reference may point at another reference). */
function lastRef(reader: PdfReader, obj: PdfObject): PdfObject {
  let current = obj;
  for (let hops = 0; hops < 32 && current instanceof PdfRef; hops++) {
    const next = reader.getObject(current);
    if (!(next instanceof PdfRef)) return current;
    current = next;
  }
  return current;
}

function isWidget(reader: PdfReader, dict: PdfDict): boolean {
  return reader.getName(dict, 'Subtype') === 'Widget' || dict.has('Rect');
}

type Locator = (widget: PdfObject, dict: PdfDict) => PageInfo | undefined;

/** Finds a widget's page: listed in a page's /Annots (what viewers show), else its /P entry. */
function pageLocator(reader: PdfReader, source: readonly PageInfo[] | PageLookup): Locator {
  let byAnnot: Map<string, PageInfo> | undefined;
  const byPageRef = new Map<string, PageInfo>();
  return (widget, dict) => {
    if (!byAnnot) {
      const pages = source instanceof PageLookup ? source.all() : source;
      for (const p of pages) if (p.ref && !byPageRef.has(p.ref.key)) byPageRef.set(p.ref.key, p);
      byAnnot = new Map();
      let seen = 0;
      for (const p of pages) {
        for (const a of reader.getArray(p.dict, 'Annots')?.items ?? []) {
          if (++seen > reader.limits.maxObjects) throw tooComplex('too many annotations');
          if (a instanceof PdfRef && !byAnnot.has(a.key)) byAnnot.set(a.key, p);
        }
      }
    }
    const viaAnnots = widget instanceof PdfRef ? byAnnot.get(widget.key) : undefined;
    if (viaAnnots) return viaAnnots;
    const p = dict.get('P');
    return p instanceof PdfRef ? byPageRef.get(p.key) : undefined;
  };
}

function describeWidget(reader: PdfReader, widget: PdfObject, locate: Locator): SignatureWidgetInfo {
  const dict = reader.resolve(widget) as PdfDict;
  const page = locate(widget, dict);
  const userRect = readBox(reader, dict.get('Rect')) ?? null;
  return {
    pageNumber: page ? page.index + 1 : null,
    rect: page && userRect ? userSpaceRectToView(page, userRect) : null,
    userRect,
    ref: widget instanceof PdfRef ? { num: widget.num, gen: widget.gen } : null,
  };
}

/**
 * The DocMDP permission of a certified document (catalog /Perms /DocMDP -> signature ->
 * /Reference [<< /TransformMethod /DocMDP /TransformParams << /P n >> >>]): 1 = no changes,
 * 2 = form filling and signing, 3 = also annotations. null when the document is not certified.
 */
export function docMdpPermission(reader: PdfReader): 1 | 2 | 3 | null {
  const sig = reader.getDict(reader.getDict(reader.catalog, 'Perms'), 'DocMDP');
  if (!sig) return null;
  for (const item of reader.getArray(sig, 'Reference')?.items ?? []) {
    const ref = reader.resolve(item);
    if (!(ref instanceof PdfDict) || reader.getName(ref, 'TransformMethod') !== 'DocMDP') continue;
    const p = reader.getNumber(reader.getDict(ref, 'TransformParams'), 'P');
    return p === 1 || p === 3 ? p : 2; // absent or out of range: the default, 2
  }
  return 2; // certified without a readable transform: assume the default level
}
