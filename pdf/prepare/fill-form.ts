/**
 * fillForm: sets field values in ONE incremental revision: /V on the fields, /AS on check boxes and
 * radio buttons, and regenerated /AP streams for text and choice fields. Only field and widget
 * objects (and new appearance streams) change: this is "form filling", which ISO 32000 allows
 * after signatures and under DocMDP P=2, so earlier signatures stay valid.
 *
 * Values: a text (PDFDocEncoding, or UTF-16BE with BOM when needed: Hindi is stored exactly);
 * check boxes take true/false (or "true"/"false"); radio groups and choice fields take one of
 * their options (the text in /Opt, or the export/state name). Signature fields cannot be filled.
 * Appearances draw with Helvetica: text outside WinAnsi is transliterated (Devanagari) or shown as
 * "?" (see pdf/write/text.ts); the /V value is exact.
 */
import { MoharError, type ErrorCode, type ErrorItem } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString, type PdfObject } from '../objects.js';
import { getPages, normalizeRotation, readBox, type Rotation } from '../pages.js';
import { helveticaFont, viewSize } from '../write/appearance.js';
import { readFormTree, type FormField, type FormWidget } from '../write/form.js';
import { IncrementalUpdate, assertPrefix } from '../write/incremental.js';
import { cloneDict, dict, name } from '../write/serialize.js';
import { textString } from '../write/text.js';
import { assertActAllowed } from '../sign/checks.js';
import { checkboxAppearances, imageFieldAppearance, textFieldAppearance } from './appearances.js';
import { imageXObject } from '../write/image.js';
import { FF } from './prepare-form.js';

export type FormValues = Readonly<Record<string, string | boolean>>;

export function fillForm(bytes: Uint8Array, values: FormValues): Buffer {
  const reader = PdfReader.open(bytes);
  assertActAllowed(reader, 'fill');
  const update = new IncrementalUpdate(reader);
  applyFormValues(update, reader, values);
  const out = update.write().bytes;
  assertPrefix(bytes, out);
  return out;
}

/**
 * Sets field values and regenerates their appearances inside an update the caller writes: fillForm's own
 * revision, or a signature's revision that fills the signer's fields and signs in one step.
 */
export function applyFormValues(update: IncrementalUpdate, reader: PdfReader, values: FormValues): void {
  const tree = readFormTree(update);
  const byName = new Map(tree.fields.map((f) => [f.name, f]));
  const entries = Object.entries(values);
  if (entries.length === 0) throw new MoharError('bad_request', 'There are no values to fill in.');

  const errors: ErrorItem[] = [];
  const fillable = tree.fields
    .filter((f) => f.type !== 'Sig' && !(f.type === 'Btn' && f.flags & PUSHBUTTON))
    .map((f) => f.name);
  for (const [fieldName] of entries) {
    const f = byName.get(fieldName);
    if (!f) errors.push({ path: fieldName, code: 'form_field_not_found', message: `no form field "${fieldName}"` });
    else if (f.type === 'Sig') {
      errors.push({
        path: fieldName,
        code: 'form_value_invalid',
        message: `"${fieldName}" is a signature field: it is signed, not filled`,
      });
    }
  }
  if (errors.length > 0) {
    const code = errors.some((e) => e.code === 'form_field_not_found') ? 'form_field_not_found' : 'form_value_invalid';
    const list =
      fillable.length > 0
        ? fillable
            .slice(0, 50)
            .map((n) => `"${n}"`)
            .join(', ')
        : 'none';
    throw new MoharError(code, `${errors.map((e) => e.message).join('; ')}. Fillable fields: ${list}.`, {
      errors,
      extra: { fillableFields: fillable },
    });
  }

  const rotationOf = widgetRotations(update, reader);
  let font: PdfRef | undefined;
  const helv = (): PdfRef => (font ??= update.add(helveticaFont()));

  for (const [fieldName, value] of entries) {
    const field = byName.get(fieldName)!;
    const problem = (message: string): void => {
      errors.push({ path: fieldName, code: 'form_value_invalid', message: `"${fieldName}": ${message}` });
    };
    if (field.type === 'Tx') {
      if (typeof value !== 'string') {
        problem('a text field takes a string');
        continue;
      }
      setValue(update, field, textString(value));
      const size = daFontSize(field.da);
      for (const w of field.widgets) {
        regenerate(update, field, w, rotationOf, (box) =>
          textFieldAppearance(value, box, helv(), { fontSize: size, multiline: (field.flags & FF.MULTILINE) !== 0 }),
        );
      }
    } else if (field.type === 'Ch') {
      if (typeof value !== 'string') {
        problem('a choice field takes one of its options');
        continue;
      }
      const choice = matchChoice(update, field, value);
      if (!choice && !(field.flags & CHOICE_EDIT)) {
        problem(`"${value}" is not one of the options`);
        continue;
      }
      setValue(update, field, textString(choice?.export ?? value));
      const shown = choice?.display ?? value;
      const size = daFontSize(field.da);
      for (const w of field.widgets) {
        regenerate(update, field, w, rotationOf, (box) => textFieldAppearance(shown, box, helv(), { fontSize: size }));
      }
    } else if (field.type === 'Btn') {
      if (field.flags & PUSHBUTTON) problem('a push button has no value');
      else if (field.flags & FF.RADIO) fillRadio(update, field, value, problem);
      else fillCheckbox(update, field, value, rotationOf, problem);
    } else {
      problem('the field has no type that can be filled');
    }
  }
  if (errors.length > 0) {
    throw new MoharError('form_value_invalid', `${errors.map((e) => e.message).join('; ')}.`, { errors });
  }
}

/** Text fields that show one picture instead of their text: /V is `value`, every widget's appearance the image. */
export interface FieldImage {
  /** A PNG or JPEG (pdf/write/image.ts). */
  readonly image: Uint8Array;
  /** The text value (/V) the fields carry under the picture, for readers of the form data. */
  readonly value: string;
  /** Fully qualified names of the text fields. */
  readonly fields: readonly string[];
}

/**
 * Sets one picture as the appearance of text fields (a signer's initials, drawn once and shown in each of
 * their Initials fields), inside an update the caller writes. The image object is added once and shared.
 */
export function applyFieldImage(update: IncrementalUpdate, reader: PdfReader, fill: FieldImage): void {
  const tree = readFormTree(update);
  const byName = new Map(tree.fields.map((f) => [f.name, f]));
  const errors: (ErrorItem & { readonly code: ErrorCode })[] = [];
  for (const fieldName of fill.fields) {
    const f = byName.get(fieldName);
    if (!f) errors.push({ path: fieldName, code: 'form_field_not_found', message: `no form field "${fieldName}"` });
    else if (f.type !== 'Tx') {
      errors.push({
        path: fieldName,
        code: 'form_value_invalid',
        message: `"${fieldName}" is not a text field: it cannot show a picture`,
      });
    }
  }
  if (errors.length > 0) {
    throw new MoharError(errors[0]!.code, `${errors.map((e) => e.message).join('; ')}.`, { errors });
  }
  const img = imageXObject(fill.image);
  if (img.smask) img.image.dict.set('SMask', update.add(img.smask));
  const imageRef = update.add(img.image);
  const rotationOf = widgetRotations(update, reader);
  for (const fieldName of fill.fields) {
    const field = byName.get(fieldName)!;
    setValue(update, field, textString(fill.value));
    for (const w of field.widgets) {
      regenerate(update, field, w, rotationOf, (box) => imageFieldAppearance(box, imageRef, img));
    }
  }
}

const PUSHBUTTON = 1 << 16;
const CHOICE_EDIT = 1 << 18;

/** The /DA font size (0 = automatic). */
function daFontSize(da: string | undefined): number {
  const m = da ? /(\d+(?:\.\d+)?)\s+Tf/.exec(da) : null;
  return m ? Number(m[1]) : 0;
}

function setValue(update: IncrementalUpdate, field: FormField, value: PdfObject): void {
  fieldDict(update, field).set('V', value);
}

function fieldDict(update: IncrementalUpdate, field: FormField): PdfDict {
  if (!field.ref) {
    throw new MoharError(
      'pdf_unsupported',
      `The form field "${field.name}" is not an object of its own and cannot be filled.`,
    );
  }
  return update.editDict(field.ref);
}

/** The editable dictionary of a widget (the field's own when they are merged). */
function widgetDict(update: IncrementalUpdate, field: FormField, w: FormWidget): PdfDict {
  if (w.ref && field.ref && w.ref.num === field.ref.num) return fieldDict(update, field);
  if (!w.ref) {
    throw new MoharError(
      'pdf_unsupported',
      `A widget of "${field.name}" is not an object of its own and cannot be changed.`,
    );
  }
  return update.editDict(w.ref);
}

type RotationOf = (w: FormWidget) => Rotation;

/** A widget's rotation: its /MK /R, else its page's /Rotate. */
function widgetRotations(update: IncrementalUpdate, reader: PdfReader): RotationOf {
  const pages = getPages(reader);
  const byPage = new Map<string, Rotation>();
  const byAnnot = new Map<string, Rotation>();
  for (const p of pages) {
    if (p.ref) byPage.set(p.ref.key, p.rotate);
    for (const a of reader.getArray(p.dict, 'Annots')?.items ?? []) {
      if (a instanceof PdfRef) byAnnot.set(a.key, p.rotate);
    }
  }
  return (w) => {
    const mk = update.resolve(w.dict.get('MK'));
    const r = mk instanceof PdfDict ? update.resolve(mk.get('R')) : null;
    if (r !== null) return normalizeRotation(r);
    if (w.ref && byAnnot.has(w.ref.key)) return byAnnot.get(w.ref.key)!;
    const p = w.dict.get('P');
    return (p instanceof PdfRef ? byPage.get(p.key) : undefined) ?? 0;
  };
}

function regenerate(
  update: IncrementalUpdate,
  field: FormField,
  w: FormWidget,
  rotationOf: RotationOf,
  make: (box: { width: number; height: number; rotation: Rotation }) => ReturnType<typeof textFieldAppearance>,
): void {
  const rect = readBox(update.reader, update.resolve(w.dict.get('Rect')));
  if (!rect || rect[2] - rect[0] <= 0 || rect[3] - rect[1] <= 0) return; // hidden widget: nothing to draw
  const rotation = rotationOf(w);
  const ap = update.add(make({ ...viewSize(rect, rotation), rotation }));
  const d = widgetDict(update, field, w);
  const old = update.resolve(d.get('AP'));
  const apDict = old instanceof PdfDict ? cloneDict(old) : new PdfDict();
  apDict.set('N', ap);
  apDict.set('D', null); // a stale "down" appearance would show the old value while clicked
  d.set('AP', apDict);
}

/** A choice option by display text or export value: /Opt items are strings or [export display]. */
function matchChoice(
  update: IncrementalUpdate,
  field: FormField,
  value: string,
): { export: string; display: string } | undefined {
  const opt = update.resolve(field.dict.get('Opt'));
  if (!(opt instanceof PdfArray)) return undefined;
  for (const item of opt.items) {
    const o = update.resolve(item);
    if (o instanceof PdfString && o.toText() === value) return { export: value, display: value };
    if (o instanceof PdfArray) {
      const ex = update.resolve(o.get(0));
      const di = update.resolve(o.get(1));
      const exText = ex instanceof PdfString ? ex.toText() : undefined;
      const diText = di instanceof PdfString ? di.toText() : exText;
      if (exText !== undefined && (exText === value || diText === value)) {
        return { export: exText, display: diText ?? exText };
      }
    }
  }
  return undefined;
}

/** The "on" appearance state of a widget: the /AP /N key that is not /Off. */
function onState(update: IncrementalUpdate, w: FormWidget): string | undefined {
  const ap = update.resolve(w.dict.get('AP'));
  const n = ap instanceof PdfDict ? update.resolve(ap.get('N')) : null;
  if (!(n instanceof PdfDict)) return undefined;
  for (const k of n.keys()) if (k !== 'Off') return k;
  return undefined;
}

function truthy(value: string | boolean): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  return undefined;
}

function fillCheckbox(
  update: IncrementalUpdate,
  field: FormField,
  value: string | boolean,
  rotationOf: RotationOf,
  problem: (m: string) => void,
): void {
  const on = truthy(value);
  const states = field.widgets.map((w) => onState(update, w));
  const named = typeof value === 'string' && states.includes(value) ? value : undefined;
  if (on === undefined && !named) return problem('a check box takes true or false');
  const state = named ?? (on ? (states.find((s) => s !== undefined) ?? 'Yes') : 'Off');
  setValue(update, field, name(state));
  field.widgets.forEach((w, i) => {
    const d = widgetDict(update, field, w);
    if (states[i] === undefined) {
      // No usable appearance dictionary: make ours, with the state name we set.
      const rect = readBox(update.reader, update.resolve(w.dict.get('Rect')));
      if (rect) {
        const rotation = rotationOf(w);
        const ap = checkboxAppearances({ ...viewSize(rect, rotation), rotation });
        const onName = state === 'Off' ? 'Yes' : state;
        d.set('AP', dict({ N: dict({ [onName]: update.add(ap.on), Off: update.add(ap.off) }) }));
      }
    }
    d.set('AS', name(state !== 'Off' && (states[i] === undefined || states[i] === state) ? state : 'Off'));
  });
}

function fillRadio(
  update: IncrementalUpdate,
  field: FormField,
  value: string | boolean,
  problem: (m: string) => void,
): void {
  const opt = update.resolve(field.dict.get('Opt'));
  const options =
    opt instanceof PdfArray
      ? opt.items.map((o) => update.resolve(o)).map((o) => (o instanceof PdfString ? o.toText() : undefined))
      : [];
  const states = field.widgets.map((w) => onState(update, w));
  let state: string | undefined;
  if (value === false || value === '') state = 'Off';
  else if (typeof value === 'string') {
    const byOption = options.indexOf(value);
    if (byOption >= 0 && states[byOption] !== undefined) state = states[byOption];
    else if (states.includes(value)) state = value;
  }
  if (state === undefined) {
    const shown = options.filter((o): o is string => o !== undefined);
    return problem(
      `"${String(value)}" is not one of the options (${(shown.length > 0 ? shown : states.filter((s): s is string => s !== undefined)).join(', ')})`,
    );
  }
  setValue(update, field, new PdfName(state));
  // Only widgets whose state changes are rewritten: a widget redefined unchanged is a change a validator
  // cannot tell from a forged one (the allow-list refuses it).
  field.widgets.forEach((w, i) => {
    const shown = states[i] === state ? state : 'Off';
    const current = update.resolve(w.dict.get('AS'));
    if (!(current instanceof PdfName && current.name === shown)) widgetDict(update, field, w).set('AS', name(shown));
  });
}
