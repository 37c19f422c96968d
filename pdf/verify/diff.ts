/**
 * Difference analysis of ONE incremental revision, object by object, in the manner of ISO 32000 DocMDP
 * and pyHanko's difference policy: collect what the cross-reference data says changed → learn what each
 * object is (diff-facts.ts) → classify each added or changed object (diff-classify.ts) → give added
 * objects that do not say what they are the class of whatever uses them → refuse what only an
 * unchanged object could have reached (a "dangling" reference filled in later) → the trailer.
 * Pure: two readers in, a JSON-serialisable list out; each revision is parsed once.
 */
import type { PdfReader } from '../document.js';
import { PdfRef, type PdfObject } from '../objects.js';
import type { XrefEntry } from '../xref.js';
import type { ChangedObject } from './change-class.js';
import { classifyAdded, classifyChanged } from './diff-classify.js';
import type { DiffScope, Verdict } from './diff-rules/scope.js';
import { describe } from './diff-util.js';
import { referencesIn, revisionFacts, type SigDictInfo } from './diff-facts.js';
import { trailerInfoChange } from './metadata-changes.js';

interface Collected {
  readonly added: Set<number>;
  readonly changed: number[];
  readonly problems: ChangedObject[];
}

const inUse = (e: XrefEntry | undefined): boolean => e !== undefined && e.type !== 'free';

function sameEntry(a: XrefEntry, b: XrefEntry): boolean {
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset && a.gen === b.gen;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNum === b.streamNum && a.index === b.index;
  return a.type === b.type;
}

function objectAt(reader: PdfReader, num: number): PdfObject {
  const e = reader.xref.entries.get(num);
  return e && e.type !== 'free' ? reader.getObject(new PdfRef(num, e.type === 'offset' ? e.gen : 0)) : null;
}

/** Step 1: which object numbers the new cross-reference data adds, changes, frees or reuses. */
function collect(before: PdfReader, after: PdfReader): Collected {
  const added = new Set<number>();
  const changed: number[] = [];
  const problems: ChangedObject[] = [];
  for (const [num, entry] of after.xref.entries) {
    const old = before.xref.entries.get(num);
    if (old && sameEntry(old, entry)) continue;
    if (!inUse(entry)) {
      if (inUse(old)) {
        problems.push({ num, class: 'other', reason: `object ${num} freed (${describe(objectAt(before, num))})` });
      }
    } else if (old === undefined) added.add(num);
    else if (!inUse(old)) problems.push({ num, class: 'other', reason: `object number ${num} reused (it was free)` });
    else if (old.type === 'offset' && entry.type === 'offset' && old.gen !== entry.gen) {
      problems.push({ num, class: 'other', reason: `object ${num} given a new generation number` });
    } else changed.push(num);
  }
  return { added, changed, problems };
}

/** Step 4: an appearance stream, font or image takes the class of the objects that use it. */
function propagate(after: PdfReader, verdicts: Map<number, Verdict[]>, pending: Set<number>): void {
  const queue = [...verdicts.keys()];
  while (queue.length > 0) {
    const source = queue.shift()!;
    const given = verdicts.get(source) ?? [];
    if (given.every((v) => v.class === 'structure')) continue;
    for (const target of referencesIn(objectAt(after, source))) {
      if (!pending.has(target)) continue;
      const list = verdicts.get(target) ?? [];
      let grew = false;
      for (const v of given) {
        if (v.class === 'structure' || list.some((w) => w.class === v.class && w.field === v.field)) continue;
        list.push({
          ...v,
          reason: `new ${describe(objectAt(after, target))} used by object ${source} (${v.class}${v.field === undefined ? '' : ` of field "${v.field}"`})`,
        });
        grew = true;
      }
      verdicts.set(target, list);
      if (grew) queue.push(target);
    }
  }
}

/** Step 5: an added object number an UNCHANGED object already referred to (shown at once, never judged). */
function danglingFilled(after: PdfReader, touched: ReadonlySet<number>, added: ReadonlySet<number>): ChangedObject[] {
  const out: ChangedObject[] = [];
  const reported = new Set<number>();
  for (const [num, entry] of after.xref.entries) {
    if (entry.type === 'free' || touched.has(num)) continue;
    for (const target of referencesIn(objectAt(after, num))) {
      if (!added.has(target) || reported.has(target)) continue;
      reported.add(target);
      out.push({
        num: target,
        class: 'other',
        reason: `new object ${target} fills a reference that unchanged object ${num} already made`,
      });
    }
  }
  return out;
}

// Trailer keys that describe the cross-reference structure itself, not the document.
const TRAILER_STRUCTURE = new Set([
  'Size',
  'Prev',
  'XRefStm',
  'ID',
  'Type',
  'W',
  'Index',
  'Filter',
  'DecodeParms',
  'Length',
]);

/** Step 6: the trailer may change only its structural keys, and /Info to a new dictionary (metadata-changes.ts). */
function trailerChanges(before: PdfReader, after: PdfReader, added: ReadonlySet<number>): ChangedObject[] {
  const out: ChangedObject[] = [];
  if (after.xref.reconstructed) {
    out.push({
      num: 0,
      class: 'other',
      reason: 'the cross-reference data is damaged (objects found by scanning the file)',
    });
  }
  const keys = new Set([...before.trailer.keys(), ...after.trailer.keys()]);
  for (const key of keys) {
    if (TRAILER_STRUCTURE.has(key)) continue;
    const a = before.trailer.get(key);
    const b = after.trailer.get(key);
    const same =
      a instanceof PdfRef && b instanceof PdfRef
        ? a.num === b.num && a.gen === b.gen
        : a === b || JSON.stringify(a) === JSON.stringify(b);
    if (same) continue;
    const how = a === null ? 'added' : b === null ? 'removed' : 'changed';
    out.push(
      key === 'Info'
        ? trailerInfoChange(after, added, how)
        : { num: 0, class: 'other', reason: `trailer /${key} ${how}` },
    );
  }
  return out;
}

/** How strictly to read what the revision claims; the defaults are the verifier's (as pyHanko reads a file). */
export interface AnalysisOptions {
  /**
   * A new approval signature may lock (FieldMDP) no more than its field's /Lock (diff-locks.ts): what an act
   * judged before Mohar stores it may write. The verifier accepts any FieldMDP lock of a later signature, as
   * pyHanko does: it constrains only what comes after that signature.
   */
  readonly locksWithinFieldLock?: boolean;
  /** Fields a new signature may lock beyond its field's /Lock (the acting recipient's own). */
  readonly lockableFields?: readonly string[];
}

/** Everything the revision from `before` to `after` changed, classified; `after` must extend `before`. */
export function analyseRevision(before: PdfReader, after: PdfReader, options: AnalysisOptions = {}): ChangedObject[] {
  const { added, changed, problems } = collect(before, after);
  const fa = revisionFacts(after);
  const newSigs = new Map<number, SigDictInfo>([...fa.sigDicts].filter(([num]) => added.has(num)));
  const verdicts = new Map<number, Verdict[]>();
  const scope: DiffScope = {
    before: revisionFacts(before),
    after: fa,
    newSigs,
    added,
    addedVerdicts: verdicts,
    locksWithinFieldLock: options.locksWithinFieldLock === true,
    lockableFields: options.lockableFields ?? [],
  };
  const pending = new Set<number>();
  for (const num of added) {
    const v = classifyAdded(scope, num, objectAt(after, num));
    if (v) verdicts.set(num, v);
    else pending.add(num);
  }
  for (const num of changed) {
    verdicts.set(num, classifyChanged(scope, num, objectAt(before, num), objectAt(after, num)));
  }
  propagate(after, verdicts, pending);
  const out: ChangedObject[] = [...problems];
  for (const [num, list] of verdicts) for (const v of list) out.push({ num, ...v });
  for (const num of pending) {
    if (!verdicts.has(num)) {
      out.push({
        num,
        class: 'other',
        reason: `new ${describe(objectAt(after, num))} object ${num} used by nothing this revision may change`,
      });
    }
  }
  out.push(...danglingFilled(after, new Set([...added, ...changed]), added), ...trailerChanges(before, after, added));
  return out.sort((a, b) => a.num - b.num);
}
