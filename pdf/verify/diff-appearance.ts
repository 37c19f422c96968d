/**
 * Appearance objects of a form field that a revision rewrites in place: the widget's indirect /AP dictionary, or an
 * appearance stream it names (/N, /R, /D, directly or per appearance state). Rewriting them changes the field's look
 * exactly as a new /AP on the widget would, so they take the field's class (pyHanko's test files
 * form-update-*-ap-indirect expect form filling there), provided that nothing else reaches them: a catalog, trailer
 * or other key pointing at the same object would make the "appearance update" change something else as well
 * (pyHanko's "sneaky" variants).
 */
import type { PdfReader } from '../document.js';
import { PdfDict, PdfRef, type PdfObject } from '../objects.js';
import { referencesIn, type FieldNode, type RevisionFacts } from './diff-facts.js';

export interface AppearanceOwner {
  readonly node: FieldNode;
  /** What the object is to the widget: its /AP dictionary, or one of the streams the /AP names. */
  readonly role: 'dictionary' | 'stream';
}

function objectAt(reader: PdfReader, num: number): PdfObject {
  const e = reader.xref.entries.get(num);
  return e && e.type !== 'free' ? reader.getObject(new PdfRef(num, e.type === 'offset' ? e.gen : 0)) : null;
}

/** The object numbers a widget's /AP uses: the dictionary itself (when indirect) and its appearance streams. */
function appearanceObjects(reader: PdfReader, widget: PdfDict): { dictionary?: number; streams: number[] } {
  const ap = widget.get('AP');
  const dict = reader.resolve(ap);
  const streams: number[] = [];
  if (dict instanceof PdfDict) {
    for (const key of ['N', 'R', 'D']) {
      const entry = dict.get(key);
      if (entry instanceof PdfRef && !(reader.resolve(entry) instanceof PdfDict)) streams.push(entry.num);
      const states = reader.resolve(entry);
      if (states instanceof PdfDict) {
        for (const state of states.map.values()) if (state instanceof PdfRef) streams.push(state.num);
      }
    }
  }
  return ap instanceof PdfRef ? { dictionary: ap.num, streams } : { streams };
}

/** Whether only the objects in `allowed` (and not the trailer) refer to object `num` in this revision. */
function reachedOnlyThrough(reader: PdfReader, num: number, allowed: ReadonlySet<number>): boolean {
  if (referencesIn(reader.trailer).includes(num)) return false;
  for (const [other, entry] of reader.xref.entries) {
    if (entry.type === 'free' || allowed.has(other) || other === num) continue;
    if (referencesIn(objectAt(reader, other)).includes(num)) return false;
  }
  return true;
}

/** The field whose widget's appearance object `num` is, in the revision `facts` describes; undefined otherwise. */
export function appearanceOwner(facts: RevisionFacts, num: number): AppearanceOwner | undefined {
  const { reader } = facts;
  for (const [widgetNum, node] of facts.fields) {
    if (!node.widget) continue;
    const widget = objectAt(reader, widgetNum);
    if (!(widget instanceof PdfDict)) continue;
    const { dictionary, streams } = appearanceObjects(reader, widget);
    const role = dictionary === num ? 'dictionary' : streams.includes(num) ? 'stream' : undefined;
    if (!role) continue;
    // The path widget -> /AP dictionary -> stream must be the only one, at each step.
    const dictionaryPrivate = dictionary === undefined || reachedOnlyThrough(reader, dictionary, new Set([widgetNum]));
    const allowed = new Set([widgetNum, ...(dictionary === undefined ? [] : [dictionary])]);
    return dictionaryPrivate && reachedOnlyThrough(reader, num, allowed) ? { node, role } : undefined;
  }
  return undefined;
}
