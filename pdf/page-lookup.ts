/**
 * One page by its position without walking the whole page tree (issue 30). Signing needs page 1 (an
 * invisible field) or the page the caller names; a full walk (getPages) resolves every page object, and on a
 * file of thousands of pages packed in object streams that is most of the signing time.
 *
 * The lookup goes down from the root using each node's /Count, as viewers do (ISO 32000-1 7.7.3.2). When the
 * tree does not allow that (a /Count missing or negative, a node with kids that says it holds none, a cycle,
 * an index beyond the last page), it falls back to the full walk, which applies every limit and refusal
 * getPages applies. The root /Count is checked against maxPages at once, as getPages does.
 */
import type { PdfReader } from './document.js';
import { tooComplex } from './limits.js';
import { PdfDict, PdfRef, type PdfObject } from './objects.js';
import { getPages, inheritAttributes, isPageTreeNode, makePage, type Inherited, type PageInfo } from './pages.js';

export class PageLookup {
  private everyPage: readonly PageInfo[] | undefined;

  constructor(private readonly reader: PdfReader) {
    const declared = reader.getNumber(reader.getDict(reader.catalog, 'Pages'), 'Count');
    if (declared !== undefined && declared > reader.limits.maxPages) {
      throw tooComplex(`more than ${reader.limits.maxPages} pages (the document says ${declared})`);
    }
  }

  /** Every page, by the full walk (done once). */
  all(): readonly PageInfo[] {
    return (this.everyPage ??= getPages(this.reader));
  }

  /** The page at 0-based `index`, or undefined when the document has no such page. */
  at(index: number): PageInfo | undefined {
    if (!Number.isInteger(index) || index < 0) return undefined;
    if (this.everyPage) return this.everyPage[index];
    return descend(this.reader, index) ?? this.all()[index];
  }
}

/** The page at `target` found through the /Count of each node on the way, or undefined when /Count cannot be used. */
function descend(reader: PdfReader, target: number): PageInfo | undefined {
  let node: PdfObject = reader.catalog.get('Pages');
  let inherited: Inherited = {};
  let remaining = target;
  const path = new Set<string>();
  for (let depth = 0; depth <= reader.limits.maxDepth; depth++) {
    const dict = reader.resolve(node);
    if (!(dict instanceof PdfDict)) return undefined;
    const here = inheritAttributes(dict, inherited);
    if (!isPageTreeNode(reader, dict)) {
      return remaining === 0
        ? makePage(reader, target, node instanceof PdfRef ? node : undefined, dict, here)
        : undefined;
    }
    if (node instanceof PdfRef) {
      if (path.has(node.key)) return undefined;
      path.add(node.key);
    }
    let next: PdfObject | undefined;
    for (const kid of reader.getArray(dict, 'Kids')?.items ?? []) {
      const count = pagesUnder(reader, kid);
      if (count === undefined) return undefined;
      if (remaining < count) {
        next = kid;
        break;
      }
      remaining -= count;
    }
    if (next === undefined) return undefined;
    node = next;
    inherited = here;
  }
  return undefined;
}

/** How many pages a kid holds by its own word (1 for a page), or undefined when that word cannot be trusted. */
function pagesUnder(reader: PdfReader, kid: PdfObject): number | undefined {
  const dict = reader.resolve(kid);
  if (!(dict instanceof PdfDict)) return undefined;
  if (!isPageTreeNode(reader, dict)) return 1;
  const count = reader.getNumber(dict, 'Count');
  if (count === undefined || !Number.isInteger(count) || count < 0) return undefined;
  if (count === 0 && (reader.getArray(dict, 'Kids')?.length ?? 0) > 0) return undefined;
  return count;
}
