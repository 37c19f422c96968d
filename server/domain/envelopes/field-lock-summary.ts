/**
 * What a signature's FieldMDP lock says in the signature summary (issue 26): the fields it locks and those of them
 * that a later revision changed anyway. The verifier reports the lock (SignatureReport.fieldLock) and every object
 * changed after the signature with the field it belongs to; a locked field filled, re-drawn or signed after it is a
 * change the signature does not allow (the same rule as pdf/verify/field-locks.ts, which words the problem).
 */
import { isFieldLocked, type FieldLock, type SignatureReport } from '../../../pdf/index.js';

export interface FieldLockSummary {
  /** All: every field; Include: only `fields`; Exclude: every field but `fields` (fully qualified names). */
  action: FieldLock['action'];
  fields: string[];
  /** Locked fields changed after the signature, in the order first changed. */
  changed: string[];
}

/** Validation data (a /DSS, a document timestamp's field) never breaks a lock (ISO 32000-2 12.8.2.4). */
const LOCKABLE = new Set(['form_filling', 'signing', 'annotations']);

export function fieldLockSummary(signature: SignatureReport): FieldLockSummary | null {
  const lock = signature.fieldLock;
  if (!lock) return null;
  const changed = new Set<string>();
  for (const object of signature.changedObjects) {
    if (object.field !== undefined && LOCKABLE.has(object.class) && isFieldLocked(lock, object.field)) {
      changed.add(object.field);
    }
  }
  return { action: lock.action, fields: lock.action === 'All' ? [] : [...lock.fields], changed: [...changed] };
}
