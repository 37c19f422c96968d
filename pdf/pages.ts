/**
 * Page-tree walk (ISO 32000-1 7.7.3). Iterative with an explicit stack, cycle-safe, and bounded:
 * the root /Count is checked first so a huge document is refused at once, and the nodes actually
 * visited are capped too, because /Count can lie. Inheritable attributes (MediaBox, CropBox,
 * Rotate, Resources) are passed down the tree.
 */
import type { PdfReader } from './document.js';
import { invalidPdf, tooComplex } from './limits.js';
import { PdfArray, PdfDict, PdfRef, type PdfObject } from './objects.js';

/** A rectangle in default user space: [llx, lly, urx, ury], normalized so ll < ur. */
export type Box = readonly [number, number, number, number];

export type Rotation = 0 | 90 | 180 | 270;

export interface PageInfo {
  /** 0-based position in the document. */
  readonly index: number;
  /** The page object's reference (undefined only for a page written directly inside /Kids). */
  readonly ref: PdfRef | undefined;
  readonly dict: PdfDict;
  readonly mediaBox: Box;
  /** The CropBox clipped to the MediaBox (= MediaBox when absent): what a viewer shows. */
  readonly cropBox: Box;
  readonly rotate: Rotation;
  readonly resources: PdfDict | undefined;
}

/** US Letter, what viewers assume when a page has no usable MediaBox. */
const DEFAULT_MEDIA_BOX: Box = [0, 0, 612, 792];

export interface Inherited {
  readonly mediaBox?: PdfObject;
  readonly cropBox?: PdfObject;
  readonly rotate?: PdfObject;
  readonly resources?: PdfObject;
}

interface Frame {
  readonly node: PdfObject; // a reference or a direct dictionary
  readonly inherited: Inherited;
  readonly depth: number;
}

export function getPages(reader: PdfReader): PageInfo[] {
  const { maxPages, maxDepth } = reader.limits;
  const rootRef = reader.catalog.get('Pages');
  const root = reader.resolve(rootRef);
  if (!(root instanceof PdfDict)) throw invalidPdf('no page tree');
  const declared = reader.getNumber(root, 'Count');
  if (declared !== undefined && declared > maxPages) {
    throw tooComplex(`more than ${maxPages} pages (the document says ${declared})`);
  }

  const pages: PageInfo[] = [];
  const seenTreeNodes = new Set<string | PdfDict>();
  // Intermediate nodes are fewer than pages in any sane tree; allow slack for sparse ones.
  const maxNodes = 2 * maxPages + 64;
  let nodes = 0;
  const stack: Frame[] = [{ node: rootRef, inherited: {}, depth: 0 }];
  while (stack.length > 0) {
    const { node, inherited, depth } = stack.pop()!;
    if (++nodes > maxNodes) throw tooComplex(`page tree has more than ${maxNodes} nodes (limit: ${maxPages} pages)`);
    if (depth > maxDepth) throw tooComplex(`page tree nested deeper than ${maxDepth} levels`);
    const dict = reader.resolve(node);
    if (!(dict instanceof PdfDict)) throw invalidPdf('the page tree refers to a page that does not exist');
    const here = inheritAttributes(dict, inherited);
    if (isPageTreeNode(reader, dict)) {
      const key = node instanceof PdfRef ? node.key : dict;
      if (seenTreeNodes.has(key)) throw invalidPdf('the page tree contains a cycle');
      seenTreeNodes.add(key);
      const items = reader.getArray(dict, 'Kids')?.items ?? [];
      if (stack.length + items.length > maxNodes) {
        throw tooComplex(`page tree has more than ${maxNodes} nodes (limit: ${maxPages} pages)`);
      }
      for (let i = items.length - 1; i >= 0; i--) stack.push({ node: items[i]!, inherited: here, depth: depth + 1 });
      continue;
    }
    if (pages.length >= maxPages) throw tooComplex(`more than ${maxPages} pages`);
    pages.push(makePage(reader, pages.length, node instanceof PdfRef ? node : undefined, dict, here));
  }
  if (pages.length === 0) throw invalidPdf('the document has no pages');
  return pages;
}

/** The inheritable attributes in force at `dict`: its own, else its ancestors'. */
export function inheritAttributes(dict: PdfDict, inherited: Inherited): Inherited {
  return {
    mediaBox: dict.get('MediaBox') ?? inherited.mediaBox,
    cropBox: dict.get('CropBox') ?? inherited.cropBox,
    rotate: dict.get('Rotate') ?? inherited.rotate,
    resources: dict.get('Resources') ?? inherited.resources,
  };
}

/** An intermediate node (/Type /Pages, or untyped with /Kids) rather than a page. */
export function isPageTreeNode(reader: PdfReader, dict: PdfDict): boolean {
  const type = reader.getName(dict, 'Type');
  return type === 'Pages' || (type !== 'Page' && reader.getArray(dict, 'Kids') !== undefined);
}

export function makePage(
  reader: PdfReader,
  index: number,
  ref: PdfRef | undefined,
  dict: PdfDict,
  attrs: Inherited,
): PageInfo {
  let mediaBox = readBox(reader, attrs.mediaBox ?? null) ?? DEFAULT_MEDIA_BOX;
  if (mediaBox[2] - mediaBox[0] <= 0 || mediaBox[3] - mediaBox[1] <= 0) mediaBox = DEFAULT_MEDIA_BOX;
  const crop = readBox(reader, attrs.cropBox ?? null);
  const cropBox = (crop && intersect(crop, mediaBox)) ?? mediaBox;
  const resources = reader.resolve(attrs.resources ?? null);
  return {
    index,
    ref,
    dict,
    mediaBox,
    cropBox,
    rotate: normalizeRotation(reader.resolve(attrs.rotate ?? null)),
    resources: resources instanceof PdfDict ? resources : undefined,
  };
}

/** /Rotate must be a multiple of 90; anything else is ignored, as viewers do. */
export function normalizeRotation(value: PdfObject): Rotation {
  if (typeof value !== 'number' || !Number.isInteger(value) || value % 90 !== 0) return 0;
  return (((value % 360) + 360) % 360) as Rotation;
}

/** A rectangle array, normalized; undefined if it is not four numbers. */
export function readBox(reader: PdfReader, value: PdfObject): Box | undefined {
  const arr = reader.resolve(value);
  if (!(arr instanceof PdfArray) || arr.length < 4) return undefined;
  const n = arr.items.slice(0, 4).map((v) => reader.resolve(v));
  if (!n.every((v): v is number => typeof v === 'number' && Number.isFinite(v))) return undefined;
  const [a, b, c, d] = n as [number, number, number, number];
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

function intersect(a: Box, b: Box): Box | undefined {
  const r: Box = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return r[2] > r[0] && r[3] > r[1] ? r : undefined;
}
