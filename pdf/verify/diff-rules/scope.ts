/** What the rules of the allow-list see (rule.ts): the two revisions, what this one adds, the change in question. */
import type { PdfDict, PdfObject } from '../../objects.js';
import type { ChangedObject } from '../change-class.js';
import type { RevisionFacts, SigDictInfo } from '../diff-facts.js';
import { changedKeys } from '../diff-util.js';

/** The class and reason of one change to an object (its number is the caller's). */
export type Verdict = Omit<ChangedObject, 'num'>;

export interface DiffScope {
  readonly before: RevisionFacts;
  readonly after: RevisionFacts;
  /** Signature dictionaries this revision adds, by object number. */
  readonly newSigs: ReadonlyMap<number, SigDictInfo>;
  /** Object numbers this revision adds. */
  readonly added: ReadonlySet<number>;
  /** Verdicts already given to added objects (classified before the changed ones). */
  readonly addedVerdicts: ReadonlyMap<number, readonly Verdict[]>;
  /** New approval signatures may lock no more than their field's /Lock (diff-locks.ts). */
  readonly locksWithinFieldLock: boolean;
  /** Fields a new signature may lock beyond its field's /Lock (the acting recipient's own). */
  readonly lockableFields: readonly string[];
}

/** The refusing class, with its reason (and field, where the change belongs to one). */
export const other = (reason: string, field?: string): Verdict =>
  field === undefined ? { class: 'other', reason } : { class: 'other', reason, field };

/** `base`'s class and field with another reason. */
export const as = (base: Verdict, reason: string): Verdict => ({ ...base, reason });

/** The signature this revision adds to a field, if any: its class and field. */
export function signedNow(scope: DiffScope, field: string): Verdict | undefined {
  for (const sig of scope.newSigs.values()) {
    if (sig.field === field) return { class: sig.docTimestamp ? 'ltv' : 'signing', reason: '', field };
  }
  return undefined;
}

/** An object this revision adds. */
export interface AddedObject {
  readonly scope: DiffScope;
  readonly num: number;
  readonly obj: PdfObject;
  /** The object's dictionary (a stream's), if it has one. */
  readonly dict: PdfDict | undefined;
}

/** An existing object this revision writes again. */
export interface RewrittenObject {
  readonly scope: DiffScope;
  readonly num: number;
  readonly before: PdfObject;
  readonly after: PdfObject;
  /** The dictionaries (a stream's) of `before` and `after`, where they have one. */
  readonly beforeDict: PdfDict | undefined;
  readonly afterDict: PdfDict | undefined;
}

/** One key of a dictionary (catalog, AcroForm, page, field) whose value the revision changed. */
export interface KeyChange<After extends PdfDict | undefined = PdfDict | undefined> {
  readonly scope: DiffScope;
  readonly key: string;
  /** 'added', 'removed' or 'changed', for reasons. */
  readonly how: string;
  readonly before: PdfDict | undefined;
  readonly after: After;
}

/** Every key whose value differs between `before` and `after`. */
export function keyChanges<After extends PdfDict | undefined>(
  scope: DiffScope,
  before: PdfDict | undefined,
  after: After,
): KeyChange<After>[] {
  return changedKeys(before, after).map(({ key, how }) => ({ scope, key, how, before, after }));
}
