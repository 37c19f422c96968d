/**
 * Field locks in the verifier: after a signature that locks fields (FieldMDP), no later revision may change a
 * locked field's value or appearance, nor sign a locked signature field. The difference analysis (diff.ts)
 * already names the field of every form-filling and signing change; this module only matches those names
 * against the signature's locks, as pyHanko does (diff_analysis/policies.py: an update that is not
 * `valid_when_locked` of a field the FieldMDP spec locks is a suspicious modification).
 *
 * Which locks: every FieldMDP /Reference of the signature dictionary (what pyHanko reads), AND the signed
 * field's own /Lock dictionary. ISO 32000-1 table 232 says the /Lock fields "shall be locked when this signature
 * field is signed", whatever the signing tool wrote into the signature dictionary; pyHanko reads only the
 * /Reference (its `fieldmdp` has a to-do to fall back to /Lock). Honouring the bare /Lock is stricter: a signer
 * whose tool ignores /Lock (an older DSC utility) still gets the values they signed protected, which is the
 * point of the lock Mohar prepares on their field. A /Lock added or changed after signing is a change of the
 * signature field, refused by the difference analysis on its own.
 * Document timestamps and validation data (class `ltv`) never break a lock (ISO 32000-2 12.8.2.4 exempts them).
 */
import type { PdfReader } from '../document.js';
import { describeFieldLock, isFieldLocked, readFieldLock, readReferenceLocks, type FieldLock } from '../field-lock.js';
import type { PdfDict } from '../objects.js';
import type { ChangedObject } from './change-class.js';

export interface SignatureLock {
  readonly lock: FieldLock;
  /** Where it was read: the signature dictionary's FieldMDP /Reference, or the signed field's /Lock. */
  readonly source: 'reference' | 'field';
}

/** The locks of one signature: its FieldMDP references first, then its field's /Lock. */
export function signatureLocks(reader: PdfReader, sig: PdfDict, field: PdfDict | undefined): SignatureLock[] {
  const resolve = reader.resolve.bind(reader);
  const out: SignatureLock[] = readReferenceLocks(resolve, sig).map((lock) => ({ lock, source: 'reference' }));
  const own = field?.has('Lock') ? readFieldLock(resolve, field.get('Lock')) : null;
  if (own) out.push({ lock: own, source: 'field' });
  return out;
}

// What a lock forbids; `ltv` (document timestamps, /DSS) and `structure` stay allowed, `other` is already a problem.
const LOCKABLE = new Set<ChangedObject['class']>(['form_filling', 'signing', 'annotations']);

const label = (l: SignatureLock): string =>
  `${l.source === 'reference' ? 'FieldMDP' : "the field's /Lock"} ${describeFieldLock(l.lock)}`;

/** One problem per locked field that a later revision filled, re-drew or signed. */
export function fieldLockProblems(locks: readonly SignatureLock[], changes: readonly ChangedObject[]): string[] {
  if (locks.length === 0) return [];
  const byField = new Map<string, { lock: SignatureLock; changes: ChangedObject[] }>();
  for (const change of changes) {
    if (change.field === undefined || !LOCKABLE.has(change.class)) continue;
    const lock = locks.find((l) => isFieldLocked(l.lock, change.field!));
    if (!lock) continue;
    const entry = byField.get(change.field) ?? { lock, changes: [] };
    entry.changes.push(change);
    byField.set(change.field, entry);
  }
  return [...byField].map(([field, { lock, changes: list }]) => {
    const signed = list.some((c) => c.class === 'signing');
    const what = signed ? 'it was signed after it' : 'its value or appearance was changed after it';
    const reasons = [...new Set(list.map((c) => c.reason))].slice(0, 3).join('; ');
    return `field "${field}" is locked by this signature (${label(lock)}) but ${what} (${reasons})`;
  });
}
