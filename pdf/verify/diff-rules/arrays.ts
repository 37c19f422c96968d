/** Arrays of references that grow as a revision adds objects (/AcroForm /Fields, a page's /Annots). */
import { PdfArray, PdfRef, type PdfObject } from '../../objects.js';
import { other, type DiffScope, type Verdict } from './scope.js';

/** Items added to or removed from an array of references (/Fields, /Annots). */
function arrayDiff(before: PdfObject, after: PdfObject): { added: number[]; removed: number; direct: boolean } {
  const nums = (a: PdfObject): number[] =>
    a instanceof PdfArray ? a.items.filter((i): i is PdfRef => i instanceof PdfRef).map((i) => i.num) : [];
  const old = new Set(nums(before));
  const now = nums(after);
  const direct = after instanceof PdfArray && after.items.some((i) => !(i instanceof PdfRef));
  return { added: now.filter((n) => !old.has(n)), removed: [...old].filter((n) => !now.includes(n)).length, direct };
}

/** An array `where` that may only gain new objects, each with the class its own rule gave it. */
export function growthVerdicts(scope: DiffScope, where: string, before: PdfObject, after: PdfObject): Verdict[] {
  const { added, removed, direct } = arrayDiff(before, after);
  const out: Verdict[] = [];
  if (removed > 0) out.push(other(`${where}: ${removed} entr${removed === 1 ? 'y' : 'ies'} removed`));
  if (direct) out.push(other(`${where}: holds a direct object`));
  for (const num of added) {
    const verdicts = scope.added.has(num) ? scope.addedVerdicts.get(num) : undefined;
    if (!verdicts || verdicts.length === 0) out.push(other(`${where}: existing or unrecognised object ${num} added`));
    else for (const v of verdicts) out.push({ ...v, reason: `${where}: ${v.reason}` });
  }
  if (out.length === 0 && added.length === 0 && removed === 0) {
    out.push(other(`${where}: entries reordered or rewritten`));
  }
  return out;
}

export const fieldsVerdicts = (scope: DiffScope, before: PdfObject, after: PdfObject): Verdict[] =>
  growthVerdicts(scope, 'AcroForm /Fields', before, after);
