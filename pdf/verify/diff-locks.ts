/**
 * The signature references (/Reference) a revision's new signature dictionary may carry. A certification of an
 * unsigned document may carry any (its DocMDP, and a FieldMDP with it). An approval signature may carry FieldMDP
 * references only: a DocMDP one would be a second certification (ISO 32000-1 12.8.2.2: the first signature only).
 *
 * Judging an act before Mohar stores it (`withinFieldLock`), its FieldMDP references may lock no more than the
 * /Lock its field had before this revision, which is what pyHanko and Acrobat write when they sign a field with
 * a /Lock (Mohar prepares one per recipient). A FieldMDP /All or /Exclude, or an /Include beyond the field's
 * /Lock, would let a signer decide what later signers may still do: another signer's fields locked before they
 * fill them would make their act break this signature. A signer's own fields (`lockable`) may be locked too: a USB
 * DSC field has no /Lock, and token software that locks the signer's own fields takes nothing from anyone else.
 * The verifier accepts them (as pyHanko does): a later
 * signature's lock constrains only what follows it, never an earlier signature.
 */
import { coversField, describeFieldLock, readFieldLock, readReferenceLocks, type FieldLock } from '../field-lock.js';
import type { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, type PdfObject } from '../objects.js';
import type { RevisionFacts } from './diff-facts.js';

/** `inner` locks nothing that `outer` does not (for /Include lists: each name inside one of the outer's). */
function lockWithin(inner: FieldLock, outer: FieldLock): boolean {
  if (outer.action === 'All') return true;
  if (inner.action !== 'Include' || outer.action !== 'Include') return false;
  return inner.fields.every((f) => outer.fields.some((g) => coversField(g, f)));
}

/** The /Lock of the signature field `field` as the earlier revision had it. */
function fieldLockBefore(before: RevisionFacts, field: string): FieldLock | null {
  for (const [num, node] of before.fields) {
    if (node.name !== field || !node.field) continue;
    const entry = before.reader.xref.entries.get(num);
    if (!entry || entry.type === 'free') continue;
    const d = before.reader.getObject(new PdfRef(num, entry.type === 'offset' ? entry.gen : 0));
    if (d instanceof PdfDict) return readFieldLock((o) => before.reader.resolve(o), d.get('Lock'));
  }
  return null;
}

/** Why the new signature dictionary `sig` of field `field` may not carry its /Reference; null when it may. */
export function referenceProblem(
  before: RevisionFacts,
  after: PdfReader,
  sig: PdfDict,
  field: string,
  rules: { readonly certifies: boolean; readonly withinFieldLock: boolean; readonly lockable: readonly string[] },
): string | null {
  if (!sig.has('Reference') || rules.certifies) return null;
  const resolve = (o: PdfObject): PdfObject => after.resolve(o);
  const refs = resolve(sig.get('Reference'));
  const items = refs instanceof PdfArray ? refs.items.map(resolve) : [];
  const methods = items.map((i) => (i instanceof PdfDict ? resolve(i.get('TransformMethod')) : null));
  const foreign = methods.find((m) => !(m instanceof PdfName) || m.name !== 'FieldMDP');
  if (items.length === 0 || foreign !== undefined) {
    const what = foreign instanceof PdfName ? `a /${foreign.name} transform` : 'no usable transform';
    return `it carries a /Reference (${what}) but is not the certification of an unsigned document`;
  }
  if (!rules.withinFieldLock) return null;
  const own = fieldLockBefore(before, field);
  const mine: FieldLock = { action: 'Include', fields: [field, ...rules.lockable] };
  const beyond = readReferenceLocks(resolve, sig).filter(
    (lock) => !lockWithin(lock, mine) && (own === null || !lockWithin(lock, own)),
  );
  if (beyond.length === 0) return null;
  return `it carries a /Reference locking fields (FieldMDP ${beyond.map(describeFieldLock).join(', ')}) beyond its field's /Lock (${own ? describeFieldLock(own) : 'none'})`;
}
