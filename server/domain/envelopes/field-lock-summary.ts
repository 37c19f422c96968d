/**
 * What a signature's FieldMDP lock says in the signature summary (issue 26): the fields it locks and those of
 * them that a later revision changed anyway. The verifier reports the lock (SignatureReport.fieldLock) and every
 * object changed after the signature with the field it belongs to; a locked field among those is a change the
 * signature does not allow, whatever its class (a value, an appearance, a signature in it).
 */
import type { FieldLock, SignatureReport } from '../../../pdf/index.js';

export interface FieldLockSummary {
  /** All: every field; Include: only `fields`; Exclude: every field but `fields` (fully qualified names). */
  action: FieldLock['action'];
  fields: string[];
  /** Locked fields changed after the signature, in the order first changed. */
  changed: string[];
}

/** Validation data (a /DSS, a document timestamp's invisible field) is exempt from every lock (ISO 32000-2). */
const EXEMPT = new Set(['ltv', 'structure']);

export function isLocked(lock: FieldLock, field: string): boolean {
  if (lock.action === 'All') return true;
  const named = lock.fields.some((f) => field === f || field.startsWith(`${f}.`));
  return lock.action === 'Include' ? named : !named;
}

export function fieldLockSummary(signature: SignatureReport): FieldLockSummary | null {
  const lock = signature.fieldLock;
  if (!lock) return null;
  const changed = new Set<string>();
  for (const object of signature.changedObjects) {
    if (object.field !== undefined && !EXEMPT.has(object.class) && isLocked(lock, object.field)) {
      changed.add(object.field);
    }
  }
  return { action: lock.action, fields: lock.action === 'All' ? [] : [...lock.fields], changed: [...changed] };
}
