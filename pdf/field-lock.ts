/**
 * FieldMDP field locks (ISO 32000-1 12.8.2.4, tables 233 and 256; ISO 32000-2 12.8.2.4): which form fields a
 * signature forbids to change after it. The same three-way description appears in two places:
 *   - a signature field's /Lock dictionary (/Type /SigFieldLock): what signing that field SHALL lock;
 *   - a signature dictionary's /Reference entry with /TransformMethod /FieldMDP, whose /TransformParams
 *     (/Type /TransformParams, /V /1.2) say what THIS signature locks. That is what validators read
 *     (pyHanko's `fieldmdp`; Acrobat writes it from the field's /Lock when it signs).
 * Reading, writing and matching live here, beside the reader, because signing (prepare.ts), form preparation,
 * the verifier and the upload judge all need them.
 */
import { PdfArray, PdfDict, PdfName, PdfString, type PdfObject, type PdfRef } from './objects.js';
import { dict, name } from './write/serialize.js';
import { textString } from './write/text.js';

/** A FieldMDP lock; `fields` are fully qualified field names. */
export type FieldLock =
  { readonly action: 'All' } | { readonly action: 'Include' | 'Exclude'; readonly fields: readonly string[] };

type Resolve = (obj: PdfObject) => PdfObject;

/**
 * The lock a /Lock or /TransformParams dictionary describes; null when it is not one (no or an unknown
 * /Action, or /Include and /Exclude without a /Fields array). Names that are not strings are skipped.
 */
export function readFieldLock(resolve: Resolve, obj: PdfObject): FieldLock | null {
  const d = resolve(obj);
  if (!(d instanceof PdfDict)) return null;
  const action = resolve(d.get('Action'));
  if (!(action instanceof PdfName)) return null;
  if (action.name === 'All') return { action: 'All' };
  if (action.name !== 'Include' && action.name !== 'Exclude') return null;
  const list = resolve(d.get('Fields'));
  if (!(list instanceof PdfArray)) return null;
  const fields = list.items
    .map((item) => resolve(item))
    .filter((item): item is PdfString => item instanceof PdfString)
    .map((s) => s.toText());
  return { action: action.name, fields };
}

/** Every FieldMDP lock in a signature dictionary's /Reference array (normally at most one). */
export function readReferenceLocks(resolve: Resolve, sig: PdfDict): FieldLock[] {
  const refs = resolve(sig.get('Reference'));
  if (!(refs instanceof PdfArray)) return [];
  const out: FieldLock[] = [];
  for (const item of refs.items) {
    const ref = resolve(item);
    if (!(ref instanceof PdfDict)) continue;
    const method = resolve(ref.get('TransformMethod'));
    if (!(method instanceof PdfName) || method.name !== 'FieldMDP') continue;
    const lock = readFieldLock(resolve, ref.get('TransformParams'));
    // A FieldMDP reference nobody can read still claims a lock: treat it as locking everything.
    out.push(lock ?? { action: 'All' });
  }
  return out;
}

/** `name` is `listed` or a field below it (a listed non-terminal field stands for its whole subtree). */
export function coversField(listed: string, name: string): boolean {
  return listed !== '' && (name === listed || name.startsWith(`${listed}.`));
}

/**
 * Whether `lock` locks the field `fieldName`. pyHanko 0.25.1 (FieldMDPSpec.is_locked) tests a plain string
 * prefix, so that a lock of "Signature 1" also locks "Signature 10"; its maintainers took that for a bug
 * (pyHanko issue 633). Mohar compares whole name parts. For Mohar's own locks the two differ at most among
 * one recipient's fields (a lock lists full names mohar.<recipient>.<field id>, and ids have no dots).
 */
export function isFieldLocked(lock: FieldLock, fieldName: string): boolean {
  if (lock.action === 'All') return true;
  const listed = lock.fields.some((f) => coversField(f, fieldName));
  return lock.action === 'Include' ? listed : !listed;
}

/** "FieldMDP /Include [a, b]" for messages. */
export function describeFieldLock(lock: FieldLock): string {
  return lock.action === 'All' ? '/All' : `/${lock.action} [${lock.fields.join(', ')}]`;
}

function lockEntries(lock: FieldLock): Record<string, PdfObject> {
  const entries: Record<string, PdfObject> = { Action: name(lock.action) };
  if (lock.action !== 'All') entries.Fields = new PdfArray(lock.fields.map((f) => textString(f)));
  return entries;
}

/** A signature field's /Lock dictionary (written as an object of its own: ISO 32000-1 table 232). */
export function sigFieldLockDict(lock: FieldLock): PdfDict {
  return dict({ Type: name('SigFieldLock'), ...lockEntries(lock) });
}

/** The FieldMDP signature reference dictionary, as pyHanko and Acrobat write it; /Data is the catalog. */
export function fieldMdpReference(lock: FieldLock, catalog: PdfRef): PdfDict {
  return dict({
    Type: name('SigRef'),
    TransformMethod: name('FieldMDP'),
    TransformParams: dict({ Type: name('TransformParams'), ...lockEntries(lock), V: name('1.2') }),
    Data: catalog,
  });
}

/** Checks a caller's lock (from the API or JSON): a known action, and names that are non-empty strings. */
export function fieldLockProblem(lock: FieldLock): string | null {
  if (lock.action === 'All') return null;
  if (lock.action !== 'Include' && lock.action !== 'Exclude') {
    return `the FieldMDP action must be All, Include or Exclude; got ${String((lock as { action: unknown }).action)}`;
  }
  if (!Array.isArray(lock.fields) || lock.fields.some((f) => typeof f !== 'string' || f === '')) {
    return 'the FieldMDP fields must be a list of fully qualified field names';
  }
  return null;
}
