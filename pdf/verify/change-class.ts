/** The classes of change the difference analysis sorts every changed object into (see diff.ts). */
export type ChangeClass = 'none' | 'metadata' | 'signing' | 'form_filling' | 'ltv' | 'annotations' | 'other';

/**
 * One object a revision added, changed or freed, with what it is and why it got its class. An object
 * may be listed more than once when it changed in several ways (a catalog whose /DSS and /OpenAction
 * both changed). `num` 0 stands for the trailer and the cross-reference data themselves.
 */
export interface ChangedObject {
  readonly num: number;
  readonly class: Exclude<ChangeClass, 'none'> | 'structure';
  readonly reason: string;
  /** Fully qualified name of the form field the change belongs to, where there is one. */
  readonly field?: string;
}

/**
 * From harmless to worst: what DocMDP P=1 allows, then P=2, then P=3, then nothing. `metadata` (/Info, XMP,
 * catalog /Version) sits with `ltv`: pyHanko's difference policy allows both at its lowest level
 * (ModificationLevel.LTA_UPDATES), which every certification level accepts.
 */
const ORDER: readonly ChangeClass[] = ['none', 'ltv', 'metadata', 'signing', 'form_filling', 'annotations', 'other'];

export function worstClass(a: ChangeClass, b: ChangeClass): ChangeClass {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** The worst class among changed objects (structure alone counts as none). */
export function summariseClass(objects: readonly ChangedObject[]): ChangeClass {
  let worst: ChangeClass = 'none';
  for (const o of objects) if (o.class !== 'structure') worst = worstClass(worst, o.class);
  return worst;
}

/** What a DocMDP permission allows after the certification signature (ISO 32000-1 12.8.2.2). */
export function allowedByDocMdp(permission: number, change: ChangeClass): boolean {
  const allowed: readonly ChangeClass[] =
    permission === 1
      ? ['none', 'ltv', 'metadata']
      : permission === 3
        ? ['none', 'ltv', 'metadata', 'signing', 'form_filling', 'annotations']
        : ['none', 'ltv', 'metadata', 'signing', 'form_filling'];
  return allowed.includes(change);
}
