/**
 * Field locks that pyHanko 0.25.1 can keep. Its difference analysis (diff_analysis/rules/form_field_rules.py,
 * `_allow_in_place_appearance_update`) counts, in EVERY revision after a signature, an update of each form
 * field's appearance stream (/AP /N, /R, /D of a field merged with its widget) unless that stream was last
 * written in the signed revision itself; under a FieldMDP lock that names the field, such an "update" breaks the
 * lock. So a signature that locks a field drawn in an earlier revision (a value filled before signing, an empty
 * optional field, a field drawn at send) is reported as modified by pyHanko as soon as anything follows it, even
 * a /DSS or a document timestamp, though nothing changed.
 *
 * The cure: the locking signature's revision re-issues the appearance of every field it locks, that is, writes
 * byte-identical copies of its appearance streams as new objects and points the field's /AP at them (form
 * filling of that field with an unchanged look and value). A field an EARLIER signature locks is left alone:
 * re-issuing it would break that signature's lock. So the locks of a document should not overlap: each field
 * locked by one signature (completion locks only what no signer locked: `fieldsNotLocked`).
 */
import { listSignatureFields } from '../acroform.js';
import type { PdfReader } from '../document.js';
import { isFieldLocked, readFieldLock, readReferenceLocks, type FieldLock } from '../field-lock.js';
import { PdfDict, PdfRef, PdfStream } from '../objects.js';
import { PageLookup } from '../page-lookup.js';
import { readFormTree } from '../write/form.js';
import { IncrementalUpdate } from '../write/incremental.js';
import { cloneDict, makeStream } from '../write/serialize.js';

/** The locks of every signature already in the document: FieldMDP references and signed fields' /Lock. */
export function existingLocks(reader: PdfReader): FieldLock[] {
  const resolve = reader.resolve.bind(reader);
  const out: FieldLock[] = [];
  for (const field of listSignatureFields(reader, new PageLookup(reader))) {
    if (!field.signed || !field.ref) continue;
    const fd = reader.getObject(new PdfRef(field.ref.num, field.ref.gen));
    if (!(fd instanceof PdfDict)) continue;
    const sig = reader.resolve(fd.get('V'));
    if (sig instanceof PdfDict) out.push(...readReferenceLocks(resolve, sig));
    const own = readFieldLock(resolve, fd.get('Lock'));
    if (own) out.push(own);
  }
  return out;
}

/**
 * Fully qualified names of the document's terminal fields that no signature locks yet, signed signature fields
 * left out: what a completion signature should lock with /Include (instead of /All, which would lock the
 * signers' fields a second time: see the module comment).
 */
export function fieldsNotLocked(reader: PdfReader): string[] {
  const locks = existingLocks(reader);
  const signed = new Set(
    listSignatureFields(reader, new PageLookup(reader))
      .filter((f) => f.signed)
      .map((f) => f.name),
  );
  // An update that writes nothing: readFormTree reads the form as an update sees it.
  return readFormTree(new IncrementalUpdate(reader))
    .fields.map((f) => f.name)
    .filter((n) => !signed.has(n) && !locks.some((l) => isFieldLocked(l, n)));
}

/**
 * Re-issues (see the module comment) the appearance of every non-signature field `lock` covers, that no earlier
 * signature locks and whose merged widget's appearance streams this update has not written yet. Returns their
 * names: the act's policy must allow form filling of them.
 */
export function reissueLockedAppearances(update: IncrementalUpdate, lock: FieldLock): string[] {
  const earlier = existingLocks(update.reader);
  const reissued: string[] = [];
  for (const field of readFormTree(update).fields) {
    if (field.type === 'Sig' || !field.ref || !isFieldLocked(lock, field.name)) continue;
    if (earlier.some((l) => isFieldLocked(l, field.name))) continue;
    const current = update.resolve(field.ref);
    const ap = current instanceof PdfDict ? update.resolve(current.get('AP')) : null;
    if (!(ap instanceof PdfDict)) continue; // kid widgets: pyHanko does not look at them this way
    const copy = cloneDict(ap);
    let changed = false;
    for (const key of ['N', 'R', 'D']) {
      const ref = ap.get(key);
      if (!(ref instanceof PdfRef) || update.has(ref)) continue;
      const target = update.resolve(ref);
      // A stream, or a check box's dictionary of states (its state streams stay shared).
      if (target instanceof PdfStream) copy.set(key, update.add(makeStream(cloneDict(target.dict), target.raw())));
      else if (target instanceof PdfDict) copy.set(key, update.add(cloneDict(target)));
      else continue;
      changed = true;
    }
    if (!changed) continue;
    update.editDict(field.ref).set('AP', copy);
    reissued.push(field.name);
  }
  return reissued;
}
