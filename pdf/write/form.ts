/**
 * Interactive-form editing inside one incremental update (ISO 32000-1 12.7): the AcroForm
 * dictionary, its /Fields, page /Annots, the field tree with fully qualified names.
 *
 * A container may be written directly inside its parent or as an object of its own; whichever
 * object actually holds the value gets a new version, and nothing else does:
 *   catalog /AcroForm direct  -> new catalog;      /AcroForm indirect -> new AcroForm object
 *   /Fields direct            -> new AcroForm;     /Fields indirect   -> new array object
 *   page /Annots direct/absent-> new page object;  /Annots indirect   -> new array object
 * An array Mohar writes again (/Fields, /Annots, /Kids) loses its bare `null` items (see `withoutNulls`).
 */
import { MoharError } from '../../common/errors.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString, isName, type PdfObject } from '../objects.js';
import type { IncrementalUpdate } from './incremental.js';
import { cloneArray, cloneDict } from './serialize.js';

/** The catalog as this update sees it, as an editable new version. */
export function editCatalog(update: IncrementalUpdate): PdfDict {
  const root = update.reader.trailer.get('Root');
  if (!(root instanceof PdfRef)) {
    throw new MoharError('invalid_pdf', 'The file is not a readable PDF: the trailer /Root is not a reference.');
  }
  return update.editDict(root);
}

export function currentCatalog(update: IncrementalUpdate): PdfDict {
  const c = update.resolve(update.reader.trailer.get('Root'));
  if (!(c instanceof PdfDict)) {
    throw new MoharError('invalid_pdf', 'The file is not a readable PDF: no document catalog.');
  }
  return c;
}

/**
 * A dictionary-valued entry of `parent`, made editable: a new version of the indirect object, or a
 * copy placed into the (already editable) parent. Created when missing (`create`).
 */
export function editDictEntry(
  update: IncrementalUpdate,
  parent: PdfDict,
  key: string,
  create: () => PdfDict,
  indirectWhenNew = false,
): PdfDict {
  const raw = parent.get(key);
  if (raw instanceof PdfRef && update.resolve(raw) instanceof PdfDict) return update.editDict(lastRef(update, raw));
  const value = update.resolve(raw);
  const copy = value instanceof PdfDict ? cloneDict(value) : create();
  parent.set(key, indirectWhenNew && !(value instanceof PdfDict) ? update.add(copy) : copy);
  return copy;
}

/**
 * Same for an array-valued entry (an array of references: /Fields, /Annots, /Kids), without its bare
 * `null` items.
 */
export function editArrayEntry(update: IncrementalUpdate, parent: PdfDict, key: string): PdfArray {
  const raw = parent.get(key);
  if (raw instanceof PdfRef && update.resolve(raw) instanceof PdfArray) {
    return withoutNulls(update.editArray(lastRef(update, raw)));
  }
  const value = update.resolve(raw);
  const copy = value instanceof PdfArray ? withoutNulls(cloneArray(value)) : new PdfArray([]);
  parent.set(key, copy);
  return copy;
}

/**
 * Drops the bare `null` items of an array of references we write again. A `null` there stands for
 * nothing (ISO 32000-1 7.3.9), but it is a direct object where only indirect references belong: pyHanko's
 * difference analysis refuses such an /Annots or /Fields outright ("Array contains direct objects"), and
 * so does Mohar's allow-list ("holds a direct object"). Kept, the next signature's revision would break
 * every earlier one; dropped in the first revision that touches the array, every later one sees a clean
 * array. Other direct items (an annotation dictionary written inline) are kept: dropping them would
 * remove something visible; the signing self-check refuses what they would break.
 */
function withoutNulls(array: PdfArray): PdfArray {
  for (let i = array.items.length - 1; i >= 0; i--) if (array.items[i] === null) array.items.splice(i, 1);
  return array;
}

/** The reference that names the object itself (a reference may point at another reference). */
export function lastRef(update: IncrementalUpdate, ref: PdfRef): PdfRef {
  let current = ref;
  for (let i = 0; i < 32; i++) {
    const next = update.getObject(current);
    if (!(next instanceof PdfRef)) return current;
    current = next;
  }
  return current;
}

/**
 * The AcroForm dictionary, editable: only the object that holds it gets a new version (the
 * catalog when it is direct or missing, else the AcroForm object). A new one is indirect.
 */
export function editAcroForm(update: IncrementalUpdate): PdfDict {
  const catalog = currentCatalog(update);
  const raw = catalog.get('AcroForm');
  if (raw instanceof PdfRef && update.resolve(raw) instanceof PdfDict) return update.editDict(lastRef(update, raw));
  const cat = editCatalog(update);
  return editDictEntry(
    update,
    cat,
    'AcroForm',
    () => {
      const d = new PdfDict();
      d.set('Fields', new PdfArray([]));
      return d;
    },
    true,
  );
}

/** Editable /Fields of an (editable) AcroForm. */
export function editFields(update: IncrementalUpdate, acroForm: PdfDict): PdfArray {
  return editArrayEntry(update, acroForm, 'Fields');
}

/**
 * Editable /Fields when nothing else of the AcroForm is to change: an indirect /Fields array gets a new
 * version of its own and the AcroForm is left alone. Every validator counts an object written again
 * without a change as a modification (Mohar's allow-list calls it `other`), so an AcroForm rewritten just
 * to reach its /Fields would void the earlier signatures (a second signature, /SigFlags already set).
 */
export function editFormFields(update: IncrementalUpdate): PdfArray {
  const af = update.resolve(currentCatalog(update).get('AcroForm'));
  const raw = af instanceof PdfDict ? af.get('Fields') : undefined;
  if (raw instanceof PdfRef && update.resolve(raw) instanceof PdfArray) {
    return withoutNulls(update.editArray(lastRef(update, raw)));
  }
  return editFields(update, editAcroForm(update));
}

/** Adds an annotation reference to a page's /Annots. */
export function addAnnotation(update: IncrementalUpdate, pageRef: PdfRef | undefined, annot: PdfRef): void {
  if (!pageRef) {
    throw new MoharError(
      'pdf_unsupported',
      'The page is written inside the page tree instead of as an object of its own; it cannot take a form field.',
    );
  }
  const page = update.resolve(pageRef);
  if (!(page instanceof PdfDict)) {
    throw new MoharError('invalid_pdf', 'The file is not a readable PDF: a page is missing.');
  }
  const raw = page.get('Annots');
  if (raw instanceof PdfRef && update.resolve(raw) instanceof PdfArray) {
    withoutNulls(update.editArray(lastRef(update, raw))).items.push(annot);
    return;
  }
  const editable = update.editDict(pageRef);
  editArrayEntry(update, editable, 'Annots').items.push(annot);
}

/** Sets bits in the AcroForm /SigFlags (1 SignaturesExist, 2 AppendOnly). */
export function addSigFlags(update: IncrementalUpdate, bits: number): void {
  const catalog = currentCatalog(update);
  const af = update.resolve(catalog.get('AcroForm'));
  const current = af instanceof PdfDict ? update.resolve(af.get('SigFlags')) : null;
  const flags = typeof current === 'number' ? current : 0;
  if ((flags & bits) === bits) return;
  editAcroForm(update).set('SigFlags', flags | bits);
}

// ---------------------------------------------------------------- field tree

export interface FormWidget {
  readonly ref: PdfRef | undefined;
  readonly dict: PdfDict;
}

export interface FormField {
  /** Fully qualified name (partial names joined by "."). */
  readonly name: string;
  /** The terminal field object (may be merged with its only widget). */
  readonly ref: PdfRef | undefined;
  readonly dict: PdfDict;
  /** Field type, inherited from ancestors: Btn, Tx, Ch, Sig (undefined when none is given). */
  readonly type: string | undefined;
  /** Field flags /Ff, inherited. */
  readonly flags: number;
  /** /DA, inherited from ancestors (undefined when none: the AcroForm's then applies). */
  readonly da: string | undefined;
  readonly widgets: readonly FormWidget[];
}

export interface FormNode {
  readonly name: string;
  readonly ref: PdfRef | undefined;
  readonly dict: PdfDict;
}

export interface FormTree {
  readonly fields: FormField[];
  /** Every node that has a partial name (terminal or not), by fully qualified name. */
  readonly nodes: Map<string, FormNode>;
}

const MAX_FIELDS = 100_000;

function isWidgetDict(update: IncrementalUpdate, d: PdfDict): boolean {
  return isName(update.resolve(d.get('Subtype')), 'Widget') || d.has('Rect');
}

/** Walks /AcroForm /Fields (iteratively, cycle-safe) as this update sees it. */
export function readFormTree(update: IncrementalUpdate): FormTree {
  const catalog = currentCatalog(update);
  const af = update.resolve(catalog.get('AcroForm'));
  const fields: FormField[] = [];
  const nodes = new Map<string, FormNode>();
  const list = af instanceof PdfDict ? update.resolve(af.get('Fields')) : null;
  if (!(list instanceof PdfArray)) return { fields, nodes };
  type Frame = {
    node: PdfObject;
    parent: string;
    type: string | undefined;
    flags: number;
    da: string | undefined;
    depth: number;
  };
  const stack: Frame[] = list.items
    .map((node) => ({ node, parent: '', type: undefined, flags: 0, da: undefined, depth: 0 }))
    .reverse();
  const seen = new Set<string | PdfDict>();
  let visited = 0;
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (++visited > MAX_FIELDS || f.depth > update.reader.limits.maxDepth) {
      throw new MoharError('pdf_too_complex', 'The PDF is too complex to process: too many form fields.');
    }
    const ref = f.node instanceof PdfRef ? lastRef(update, f.node) : undefined;
    const d = update.resolve(f.node);
    if (!(d instanceof PdfDict)) continue;
    const key = ref ? ref.key : d;
    if (seen.has(key)) continue;
    seen.add(key);
    const t = update.resolve(d.get('T'));
    const name = t instanceof PdfString ? (f.parent ? `${f.parent}.${t.toText()}` : t.toText()) : f.parent;
    const ftObj = update.resolve(d.get('FT'));
    const type = ftObj instanceof PdfName ? ftObj.name : f.type;
    const ff = update.resolve(d.get('Ff'));
    const flags = typeof ff === 'number' ? ff : f.flags;
    const daObj = update.resolve(d.get('DA'));
    const da = daObj instanceof PdfString ? daObj.toLatin1() : f.da;
    if (t instanceof PdfString) nodes.set(name, { name, ref, dict: d });
    const kids = update.resolve(d.get('Kids'));
    const childFields: PdfObject[] = [];
    const widgets: FormWidget[] = [];
    if (isWidgetDict(update, d)) widgets.push({ ref, dict: d });
    if (kids instanceof PdfArray) {
      for (const kid of kids.items) {
        const k = update.resolve(kid);
        if (!(k instanceof PdfDict)) continue;
        if (!k.has('T') && !k.has('Kids') && isWidgetDict(update, k)) {
          widgets.push({ ref: kid instanceof PdfRef ? lastRef(update, kid) : undefined, dict: k });
        } else childFields.push(kid);
      }
    }
    for (let i = childFields.length - 1; i >= 0; i--) {
      stack.push({ node: childFields[i]!, parent: name, type, flags, da, depth: f.depth + 1 });
    }
    if (childFields.length === 0 && t instanceof PdfString) {
      fields.push({ name, ref, dict: d, type, flags, da, widgets });
    }
  }
  return { fields, nodes };
}
