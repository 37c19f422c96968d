/**
 * prepareForm: turns an envelope's field layout into real AcroForm fields, in ONE incremental
 * revision, so that any viewer (and fillForm, and signPdf) works with ordinary PDF form fields.
 *
 * Field types (the interface's numbering):
 *   1 Signature                -> empty /Sig field (signPdf signs into it by name)
 *   2 Initial                  -> /Tx text field, filled with the signer's initials by fillForm.
 *                                 Initials are a visual mark repeated on many pages, not a
 *                                 cryptographic act: one /Sig per initial would mean one token PIN
 *                                 (and one CMS) per page, and the interface does not offer
 *                                 Initial to USB DSC signers anyway. Filling is a "form filling"
 *                                 change, allowed after signatures and under DocMDP P=2.
 *   3 Date Signed, 4 Full Name, 5 First Name, 6 Last Name, 7 Email, 8 Text, 10 Number, 11 Date
 *                              -> /Tx text fields (no /AA format actions: values are checked by
 *                                 the server and written as text)
 *   9 Checkbox                 -> /Btn check box, states /Yes and /Off
 *   12 Dropdown                -> /Ch combo box with /Opt
 *   13 Radio                   -> /Btn radio group with /Opt: one widget per option, laid out
 *                                 inside the rectangle (stacked when it is tall enough, else in a
 *                                 row), states named by option index "0", "1", ...
 *
 * Names: `mohar.<recipient>.<field id>` (each part sanitised to [A-Za-z0-9_-]); the dots make a
 * field hierarchy (non-terminal nodes "mohar" and "mohar.<recipient>"), as partial names may not
 * contain dots. An existing "mohar" node from an earlier revision is extended, not duplicated.
 * Every widget has /AP /N, and /DA uses /Helv, declared in the AcroForm /DR with /ZaDb.
 *
 * Locks: each recipient's signature field gets /Lock << /Type /SigFieldLock /Action /Include /Fields [...] >>
 * naming that recipient's other fields of this layout (ISO 32000-1 12.7.4.5, table 233), so that their
 * signature locks the values they filled (signPdf writes the matching FieldMDP /Reference from it). No /P: the
 * document's DocMDP is the certification's business. A recipient with no other field gets no /Lock.
 */
import { MoharError, type ErrorItem } from '../../common/errors.js';
import { docMdpPermission } from '../acroform.js';
import { PdfReader } from '../document.js';
import { rectFitsPage, viewRectToUserSpace, type Rect } from '../geometry.js';
import { PdfArray, PdfDict, PdfName, PdfRef } from '../objects.js';
import { getPages, type PageInfo } from '../pages.js';
import { helveticaFont, viewSize, zapfDingbatsFont } from '../write/appearance.js';
import {
  addAnnotation,
  addSigFlags,
  editAcroForm,
  editArrayEntry,
  editDictEntry,
  editFields,
  readFormTree,
  type FormTree,
} from '../write/form.js';
import { IncrementalUpdate, assertPrefix } from '../write/incremental.js';
import { sigFieldLockDict } from '../field-lock.js';
import { FIELD_DESCRIPTORS, FIELD_TYPES, isFieldType, optionsProblem, valueMismatch } from '../../common/fields.js';
import { dict, name } from '../write/serialize.js';
import { textString } from '../write/text.js';
import { checkboxAppearances, radioAppearances, signatureFieldAppearance, textFieldAppearance } from './appearances.js';

/** The interface's field types: one table for every layer (common/fields.ts). */
export { FIELD_TYPES };

/** Field flags (ISO 32000-1 tables 221, 226, 228, 230). */
export const FF = {
  READ_ONLY: 1,
  REQUIRED: 2,
  NO_TOGGLE_TO_OFF: 1 << 14,
  RADIO: 1 << 15,
  COMBO: 1 << 17,
  MULTILINE: 1 << 12,
} as const;

export interface FormFieldLayout {
  /** Field type, 1..13 (see FIELD_TYPES). */
  readonly type: number;
  /** 1-based page. */
  readonly page: number;
  /** Mohar view coordinates: points from the top-left of the displayed page. */
  readonly rect: Rect;
  readonly recipientId: string;
  readonly id: string;
  /** Fully qualified name to use instead of mohar.<recipient>.<id> (dots make a hierarchy). */
  readonly name?: string;
  /** Tooltip (/TU); defaults to the type's label. */
  readonly label?: string;
  /** A pre-assigned value: text, "true"/"false" for a check box, an option for Dropdown/Radio. */
  readonly value?: string;
  /** Dropdown and Radio choices. */
  readonly options?: readonly string[];
  /** Default: true, except for Checkbox. */
  readonly required?: boolean;
  /** Text size in points; default automatic (/DA size 0). */
  readonly fontSize?: number;
  /**
   * Signature fields only; default true: the field gets the /Lock of its recipient's other fields, so the signature
   * that fills it locks them. False for a field a signer's own tool signs (USB DSC): see recipientLocks.
   */
  readonly lockOnSigning?: boolean;
}

export interface PreparedFormField {
  readonly name: string;
  readonly type: number;
  readonly pdfType: 'Sig' | 'Tx' | 'Btn' | 'Ch';
}

export interface PreparedForm {
  readonly bytes: Buffer;
  readonly fields: readonly PreparedFormField[];
}

/** One partial name: anything outside [A-Za-z0-9_-] becomes "_" (dots would split the name). */
export function sanitizePartialName(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

/** `mohar.<recipient>.<field id>`, sanitised. */
export function moharFieldName(recipientId: string, fieldId: string): string {
  return `mohar.${sanitizePartialName(recipientId)}.${sanitizePartialName(fieldId)}`;
}

function pdfTypeOf(type: number): PreparedFormField['pdfType'] {
  if (type === FIELD_TYPES.SIGNATURE) return 'Sig';
  if (type === FIELD_TYPES.CHECKBOX || type === FIELD_TYPES.RADIO) return 'Btn';
  if (type === FIELD_TYPES.DROPDOWN) return 'Ch';
  return 'Tx';
}

interface Placed {
  readonly spec: FormFieldLayout;
  readonly name: string;
  readonly page: PageInfo;
}

function validate(
  fields: readonly FormFieldLayout[],
  pages: readonly PageInfo[],
  tree: FormTree,
  certified: 1 | 2 | 3 | null,
): Placed[] {
  const errors: ErrorItem[] = [];
  const placed: Placed[] = [];
  const names = new Set<string>();
  fields.forEach((f, index) => {
    const problem = (message: string, code: string): void => {
      errors.push({ index, path: `/fields/${index}`, code, message });
    };
    const before = errors.length;
    if (!isFieldType(f.type)) {
      problem(`field type ${f.type} is not one of 1..13`, 'unknown_field_type');
    }
    if (certified !== null && f.type !== FIELD_TYPES.SIGNATURE) {
      problem('the document is certified: only signature fields can be added', 'document_locked');
    }
    const page = pages[f.page - 1];
    if (!Number.isInteger(f.page) || !page) {
      problem(`page ${f.page} is outside the document (pages 1 to ${pages.length})`, 'page_out_of_range');
    }
    const r = f.rect;
    if (!(r.width > 0 && r.height > 0)) problem('width and height must be greater than 0', 'empty_rectangle');
    else if (page && !rectFitsPage(page, r)) {
      problem(
        `the rectangle (x ${r.x}, y ${r.y}, width ${r.width}, height ${r.height}) is not inside page ${f.page}`,
        'outside_page',
      );
    }
    const fqName = f.name ?? moharFieldName(f.recipientId, f.id);
    if (fqName.split('.').some((p) => p === '')) problem(`"${fqName}" is not a usable field name`, 'bad_request');
    if (names.has(fqName) || tree.nodes.has(fqName)) {
      problem(`a form field named "${fqName}" exists already`, 'field_name_taken');
    }
    names.add(fqName);
    if (f.type === FIELD_TYPES.DROPDOWN || f.type === FIELD_TYPES.RADIO) {
      const opts = f.options ?? [];
      const unusable = optionsProblem(opts);
      if (unusable === 'missing') problem('Dropdown and Radio fields need options', 'options_missing');
      else if (unusable === 'invalid') {
        problem('options must be distinct, non-empty strings', 'options_invalid');
      } else if (f.value !== undefined && !opts.includes(f.value)) {
        problem(`value "${f.value}" is not one of the options`, 'value_invalid');
      }
    }
    // A check box's value decides its PDF state; Number and Date values are written as text (the server checks them).
    if (f.value !== undefined && valueMismatch(f.type, f.value) === 'checkbox') {
      problem('a Checkbox value is "true" or "false"', 'value_invalid');
    }
    if (f.type === FIELD_TYPES.SIGNATURE && f.value !== undefined) {
      problem('a Signature field takes no value: it is signed', 'value_invalid');
    }
    if (errors.length === before && page) placed.push({ spec: f, name: fqName, page });
  });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new MoharError(
      'invalid_field_layout',
      `The field layout cannot be placed on this PDF: ${first.path}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.`,
      { errors },
    );
  }
  return placed;
}

/** Makes the AcroForm's /DA and /DR fonts (/Helv, /ZaDb) present; returns the Helvetica to use. */
function ensureResources(update: IncrementalUpdate, acroForm: PdfDict): PdfDict | PdfRef {
  if (!acroForm.has('DA')) acroForm.set('DA', textString('/Helv 0 Tf 0 g'));
  const dr = editDictEntry(update, acroForm, 'DR', () => new PdfDict());
  const fonts = editDictEntry(update, dr, 'Font', () => new PdfDict());
  const existing = fonts.get('Helv');
  const helv = update.resolve(existing);
  let helvRef: PdfRef | PdfDict;
  if (
    helv instanceof PdfDict &&
    update.resolve(helv.get('BaseFont')) instanceof PdfName &&
    (update.resolve(helv.get('BaseFont')) as PdfName).name === 'Helvetica'
  ) {
    helvRef = existing instanceof PdfRef ? existing : helv;
  } else {
    // Absent, or /Helv names another font: our appearances use their own Helvetica object.
    helvRef = update.add(helveticaFont());
    if (!helv) fonts.set('Helv', helvRef);
  }
  if (!fonts.has('ZaDb')) fonts.set('ZaDb', update.add(zapfDingbatsFont()));
  return helvRef;
}

/**
 * Finds or creates the non-terminal node for `path` ("a.b"), returning where a kid is attached:
 * its reference (null for the top level) and a function that appends to its /Kids.
 */
function parentNode(
  update: IncrementalUpdate,
  tree: FormTree,
  fields: PdfArray,
  created: Map<string, { ref: PdfRef; kids: PdfArray }>,
  path: string[],
): { ref: PdfRef | null; add: (kid: PdfRef) => void } {
  if (path.length === 0) return { ref: null, add: (kid) => fields.items.push(kid) };
  const full = path.join('.');
  const mine = created.get(full);
  if (mine) return { ref: mine.ref, add: (kid) => mine.kids.items.push(kid) };
  const existing = tree.nodes.get(full);
  if (existing) {
    const isTerminal = tree.fields.some((f) => f.name === full);
    if (isTerminal || !existing.ref) {
      throw new MoharError('field_name_taken', `The form field "${full}" exists and cannot take child fields.`);
    }
    const ref = existing.ref;
    return {
      ref,
      add: (kid) => {
        const d = update.editDict(ref);
        editArrayEntry(update, d, 'Kids').items.push(kid);
      },
    };
  }
  const parent = parentNode(update, tree, fields, created, path.slice(0, -1));
  const kids = new PdfArray([]);
  const node = dict({ T: textString(path[path.length - 1]!), Kids: kids, Parent: parent.ref ?? undefined });
  const ref = update.add(node);
  parent.add(ref);
  created.set(full, { ref, kids });
  return { ref, add: (kid) => kids.items.push(kid) };
}

/** See the module comment. Throws invalid_field_layout with one item per bad field. */
export function prepareForm(bytes: Uint8Array, fields: readonly FormFieldLayout[]): PreparedForm {
  const reader = PdfReader.open(bytes);
  const update = new IncrementalUpdate(reader);
  const { tree, placed } = placeFields(reader, update, fields);
  const target = openFormFor(update, tree);
  const locks = recipientLocks(placed);
  const out = placed.map((field) => addField(target, field, locks.get(field.name) ?? []));
  if (out.some((f) => f.pdfType === 'Sig')) addSigFlags(update, 1);
  const result = update.write().bytes;
  assertPrefix(bytes, result);
  return { bytes: result, fields: out };
}

/** Signature field name -> the fully qualified names of its recipient's other fields in this layout. */
function recipientLocks(placed: readonly Placed[]): Map<string, string[]> {
  const locks = new Map<string, string[]>();
  // A field whose signer's own tool signs it (USB DSC) gets no /Lock: that tool would lock fields whose appearances
  // were written in an earlier revision, which pyHanko 0.25.1 then calls changed by every later revision
  // (docs/signing.md, "Field locks"). The completion lock locks them instead, re-issuing their appearances.
  for (const sig of placed.filter((p) => p.spec.type === FIELD_TYPES.SIGNATURE && p.spec.lockOnSigning !== false)) {
    const others = placed.filter((p) => p.spec.recipientId === sig.spec.recipientId && p.name !== sig.name);
    locks.set(
      sig.name,
      others.map((p) => p.name),
    );
  }
  return locks;
}

/**
 * The fields placed on their pages, or why not: document_locked (DocMDP P=1), invalid_field_layout, or none
 * given. Also the form tree as it was, read before this revision edits it.
 */
function placeFields(
  reader: PdfReader,
  update: IncrementalUpdate,
  fields: readonly FormFieldLayout[],
): { tree: FormTree; placed: Placed[] } {
  const pages = getPages(reader);
  const tree = readFormTree(update);
  const certified = docMdpPermission(reader);
  if (certified === 1) {
    throw new MoharError(
      'document_locked',
      'The document is certified with "no changes allowed" (DocMDP P=1): no form field can be added.',
    );
  }
  const placed = validate(fields, pages, tree, certified);
  if (placed.length === 0) throw new MoharError('bad_request', 'There are no fields to add.');
  return { tree, placed };
}

/**
 * Where this revision's fields go: the form tree as it was, the AcroForm's /Fields, /Helv, and the parent nodes created
 * so far.
 */
interface FormTarget {
  readonly update: IncrementalUpdate;
  readonly tree: FormTree;
  readonly fieldList: PdfArray;
  readonly helv: PdfDict | PdfRef;
  readonly created: Map<string, { ref: PdfRef; kids: PdfArray }>;
}

/** The AcroForm to add to (created when absent), with its /Fields and default resources. */
function openFormFor(update: IncrementalUpdate, tree: FormTree): FormTarget {
  const acroForm = editAcroForm(update);
  const fieldList = editFields(update, acroForm);
  const helv = ensureResources(update, acroForm);
  return { update, tree, fieldList, helv, created: new Map() };
}

/** A widget annotation on the page at `rect` (user space), turned with the page. */
function widgetBase(page: PageInfo, rect: readonly number[]): PdfDict {
  return dict({
    Type: name('Annot'),
    Subtype: name('Widget'),
    Rect: new PdfArray([...rect]),
    P: page.ref,
    F: 4,
    MK: page.rotate !== 0 ? dict({ R: page.rotate }) : undefined,
  });
}

/** A view rectangle in the page's user space, to the thousandth of a point. */
function userRectOf(page: PageInfo, rect: Rect): [number, number, number, number] {
  return viewRectToUserSpace(page, rect).map((n) => Math.round(n * 1000) / 1000) as [number, number, number, number];
}

/**
 * One field under its parent node: a field with its one widget, or a radio group with a widget per option; a
 * signature field with the /Lock of `locked` (when not empty).
 */
function addField(
  target: FormTarget,
  { spec, name: fqName, page }: Placed,
  locked: readonly string[],
): PreparedFormField {
  const { update } = target;
  const parts = fqName.split('.');
  const parent = parentNode(update, target.tree, target.fieldList, target.created, parts.slice(0, -1));
  const pdfType = pdfTypeOf(spec.type);
  const field = dict({
    FT: name(pdfType),
    T: textString(parts[parts.length - 1]!),
    TU: textString(spec.label ?? (isFieldType(spec.type) ? FIELD_DESCRIPTORS[spec.type].label : 'Field')),
    Parent: parent.ref ?? undefined,
  });
  if (pdfType === 'Sig' && locked.length > 0) {
    field.set('Lock', update.add(sigFieldLockDict({ action: 'Include', fields: locked })));
  }
  const required = spec.required ?? spec.type !== FIELD_TYPES.CHECKBOX;
  const flags = required && pdfType !== 'Sig' ? FF.REQUIRED : 0;
  if (spec.type === FIELD_TYPES.RADIO) {
    const { fieldRef, widgetRefs } = writeRadioGroup(target, field, spec, page, flags);
    parent.add(fieldRef);
    for (const ref of widgetRefs) addAnnotation(update, page.ref, ref);
  } else {
    const typeFlags = writeWidgetField(target, field, spec, page, pdfType);
    if (flags | typeFlags) field.set('Ff', flags | typeFlags);
    const ref = update.add(field);
    parent.add(ref);
    addAnnotation(update, page.ref, ref);
  }
  return { name: fqName, type: spec.type, pdfType };
}

/**
 * A field that is its own widget (signature, text, dropdown, check box): its value, /DA and appearance
 * streams. Returns the field flags its type adds.
 */
function writeWidgetField(
  target: FormTarget,
  field: PdfDict,
  spec: FormFieldLayout,
  page: PageInfo,
  pdfType: PreparedFormField['pdfType'],
): number {
  const { update, helv } = target;
  const userRect = userRectOf(page, spec.rect);
  const box = { ...viewSize(userRect, page.rotate), rotation: page.rotate };
  const w = widgetBase(page, userRect);
  let flags = 0;
  if (pdfType === 'Sig') {
    w.set('AP', dict({ N: update.add(signatureFieldAppearance(spec.label, box, helv)) }));
  } else if (pdfType === 'Tx') {
    const size = spec.fontSize ?? 0;
    field.set('DA', textString(`/Helv ${size} Tf 0 g`));
    if (spec.value !== undefined) field.set('V', textString(spec.value));
    w.set('AP', dict({ N: update.add(textFieldAppearance(spec.value ?? '', box, helv, { fontSize: size })) }));
  } else if (pdfType === 'Ch') {
    flags |= FF.COMBO;
    const size = spec.fontSize ?? 0;
    field.set('DA', textString(`/Helv ${size} Tf 0 g`));
    field.set('Opt', new PdfArray((spec.options ?? []).map((o) => textString(o))));
    if (spec.value !== undefined) field.set('V', textString(spec.value));
    w.set('AP', dict({ N: update.add(textFieldAppearance(spec.value ?? '', box, helv, { fontSize: size })) }));
  } else {
    const on = spec.value === 'true';
    field.set('DA', textString('/ZaDb 0 Tf 0 g'));
    field.set('V', name(on ? 'Yes' : 'Off'));
    const ap = checkboxAppearances(box);
    w.set('MK', dict({ CA: textString('4'), R: page.rotate !== 0 ? page.rotate : undefined }));
    // /N as an object of its own: pyHanko 0.25.1 expects a reference there (a direct dictionary of states makes its
    // difference analysis fail with IndirectObjectExpected on every signature followed by a revision).
    w.set('AP', dict({ N: update.add(dict({ Yes: update.add(ap.on), Off: update.add(ap.off) })) }));
    w.set('AS', name(on ? 'Yes' : 'Off'));
  }
  mergeInto(field, w);
  return flags;
}

/** A radio group: the field holds /Opt and /V, one kid widget per option (laid out by radioLayout). */
function writeRadioGroup(
  target: FormTarget,
  field: PdfDict,
  spec: FormFieldLayout,
  page: PageInfo,
  requiredFlag: number,
): { fieldRef: PdfRef; widgetRefs: PdfRef[] } {
  const { update, helv } = target;
  const flags = requiredFlag | FF.RADIO | FF.NO_TOGGLE_TO_OFF;
  const options = spec.options ?? [];
  const selected = spec.value !== undefined ? options.indexOf(spec.value) : -1;
  field.set('DA', textString('/ZaDb 0 Tf 0 g'));
  field.set('Opt', new PdfArray(options.map((o) => textString(o))));
  field.set('V', name(selected >= 0 ? String(selected) : 'Off'));
  const fieldRef = update.allocate();
  const widgetRefs: PdfRef[] = [];
  radioLayout(spec.rect, options.length).forEach((sub, i) => {
    const r = userRectOf(page, sub);
    const w = widgetBase(page, r);
    const ap = radioAppearances(options[i]!, { ...viewSize(r, page.rotate), rotation: page.rotate }, helv);
    w.set('Parent', fieldRef);
    w.set('MK', dict({ CA: textString('l'), R: page.rotate !== 0 ? page.rotate : undefined }));
    w.set('AP', dict({ N: dict({ [String(i)]: update.add(ap.on), Off: update.add(ap.off) }) }));
    w.set('AS', name(i === selected ? String(i) : 'Off'));
    widgetRefs.push(update.add(w));
  });
  field.set('Kids', new PdfArray([...widgetRefs]));
  if (flags) field.set('Ff', flags);
  update.set(fieldRef, field);
  return { fieldRef, widgetRefs };
}

/** Field and its only widget in one dictionary (ISO 32000-1 12.5.6.19). */
function mergeInto(field: PdfDict, widget: PdfDict): void {
  for (const [k, v] of widget.map) field.set(k, v);
}

/** Sub-rectangles for `n` radio buttons: stacked when each row gets at least 8 points, else side by side. */
export function radioLayout(rect: Rect, n: number): Rect[] {
  const count = Math.max(1, n);
  if (rect.height / count >= 8 || rect.height < 8) {
    const h = rect.height / count;
    return Array.from({ length: count }, (_, i) => ({ x: rect.x, y: rect.y + i * h, width: rect.width, height: h }));
  }
  const w = rect.width / count;
  return Array.from({ length: count }, (_, i) => ({ x: rect.x + i * w, y: rect.y, width: w, height: rect.height }));
}
