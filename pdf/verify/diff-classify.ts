/**
 * Classifies one object a revision added or changed, by what it is (from the revision facts) and by
 * which keys changed. An allow-list: a change is `signing`, `form_filling`, `ltv`, `metadata` or
 * `annotations` only when positively recognised as such (`metadata`: metadata-changes.ts); anything else
 * is `other`, with a reason a person can read.
 */
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, type PdfObject } from '../objects.js';
import type { ChangedObject } from './change-class.js';
import type { FieldNode, RevisionFacts, SigDictInfo } from './diff-facts.js';
import { appearanceOwner, type AppearanceOwner } from './diff-appearance.js';
import { signatureShapeProblems } from './sig-shape.js';
import { referenceProblem } from './diff-locks.js';
import { changedKeys, describe, dictOf, sameObject } from './diff-util.js';
import { catalogMetadataVerdict, metadataObjectVerdict } from './metadata-changes.js';

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

// Markup annotations (ISO 32000-1 12.5.6) that only show something: no actions, no media.
const MARKUP = new Set([
  'Text',
  'FreeText',
  'Line',
  'Square',
  'Circle',
  'Polygon',
  'PolyLine',
  'Highlight',
  'Underline',
  'Squiggly',
  'StrikeOut',
  'Stamp',
  'Caret',
  'Ink',
  'Popup',
]);

const other = (reason: string, field?: string): Verdict =>
  field === undefined ? { class: 'other', reason } : { class: 'other', reason, field };

/** The signature this revision adds to a field, if any: its class and field. */
function signedNow(scope: DiffScope, field: string): Verdict | undefined {
  for (const sig of scope.newSigs.values()) {
    if (sig.field === field) return { class: sig.docTimestamp ? 'ltv' : 'signing', reason: '', field };
  }
  return undefined;
}

const as = (base: Verdict, reason: string): Verdict => ({ ...base, reason });

/** An added object that says what it is; undefined when only its referrers can tell (appearance streams, fonts …). */
export function classifyAdded(scope: DiffScope, num: number, obj: PdfObject): Verdict[] | undefined {
  const { after } = scope;
  const d = dictOf(obj);
  const type = d?.get('Type');
  if (type instanceof PdfName && (type.name === 'XRef' || type.name === 'ObjStm')) {
    return [{ class: 'structure', reason: `cross-reference data (/${type.name})` }];
  }
  const sig = after.sigDicts.get(num);
  if (sig && scope.newSigs.has(num)) {
    const what = sig.docTimestamp
      ? `document timestamp of field "${sig.field}"`
      : `signature dictionary of field "${sig.field}"`;
    const shape = d ? signatureShapeProblems(after.reader, d) : ['not a dictionary'];
    const reference = d
      ? referenceProblem(scope.before, after.reader, d, sig.field, {
          certifies: certifiesNow(scope, num),
          withinFieldLock: scope.locksWithinFieldLock,
          lockable: scope.lockableFields,
        })
      : null;
    if (reference) shape.push(reference);
    if (shape.length > 0) return [other(`${what}: ${shape.join('; ')}`, sig.field)];
    return [{ class: sig.docTimestamp ? 'ltv' : 'signing', reason: what, field: sig.field }];
  }
  const node = after.fields.get(num);
  if (node) return [newFieldVerdict(scope, node, d)];
  if (num === after.catalogNum) return [other('new document catalog (the trailer /Root points to it)')];
  const page = after.pages.get(num);
  if (page !== undefined) return [other(`new page ${page + 1}`)];
  const contentOf = after.contents.get(num);
  if (contentOf !== undefined) return [other(`new content stream on page ${contentOf + 1}`)];
  const annotPage = after.annots.get(num);
  if (annotPage !== undefined) {
    const subtype = d?.get('Subtype');
    const label = subtype instanceof PdfName ? `/${subtype.name}` : 'without /Subtype';
    if (subtype instanceof PdfName && MARKUP.has(subtype.name) && !d?.has('A') && !d?.has('AA')) {
      return [
        {
          class: 'annotations',
          reason: `new annotation ${label} on page ${annotPage + 1} (not a widget of a form field)`,
        },
      ];
    }
    return [other(`new annotation ${label} on page ${annotPage + 1} not a widget of a field`)];
  }
  if (num === after.acroFormNum) {
    return acroFormVerdicts(scope, scope.before.reader.getDict(scope.before.reader.catalog, 'AcroForm'), d);
  }
  if (after.dss.has(num)) return [{ class: 'ltv', reason: `validation data (/DSS ${describe(obj)})` }];
  const meta = metadataObjectVerdict(scope, num, undefined, obj);
  return meta ? [meta] : undefined;
}

/** The signature dictionary `num` is the document's certification, made in this revision over an unsigned document. */
function certifiesNow(scope: DiffScope, num: number): boolean {
  const { before, after } = scope;
  const perms = after.reader.getDict(after.reader.catalog, 'Perms')?.get('DocMDP');
  return (
    perms instanceof PdfRef && perms.num === num && !before.reader.catalog.has('Perms') && before.sigDicts.size === 0
  );
}

function newFieldVerdict(scope: DiffScope, node: FieldNode, d: PdfDict | undefined): Verdict {
  const what = node.field ? `new form field "${node.name}"` : `new widget of field "${node.name}"`;
  if (node.type !== 'Sig' || (!node.terminal && node.field)) {
    return other(`${what} (/${node.type ?? 'no type'})`, node.name);
  }
  const signing = signedNow(scope, node.name);
  if (!signing) return other(`${what}: a signature field this revision does not sign`, node.name);
  const actions = ['A', 'AA'].filter((k) => d?.has(k));
  if (actions.length > 0) return other(`${what} carries actions (/${actions.join(', /')})`, node.name);
  return as(
    signing,
    node.field ? `new signature field "${node.name}" with its widget` : `new widget of signature field "${node.name}"`,
  );
}

function acroFormVerdicts(scope: DiffScope, before: PdfDict | undefined, after: PdfDict | undefined): Verdict[] {
  const out: Verdict[] = [];
  for (const { key, how } of changedKeys(before, after)) {
    if (key === 'Fields') {
      out.push(
        ...fieldsVerdicts(
          scope,
          scope.before.reader.resolve(before?.get('Fields') ?? null),
          scope.after.reader.resolve(after?.get('Fields') ?? null),
        ),
      );
    } else if (key === 'SigFlags') {
      const sig = [...scope.newSigs.values()][0];
      out.push(
        sig
          ? { class: sig.docTimestamp ? 'ltv' : 'signing', reason: 'AcroForm /SigFlags', field: sig.field }
          : other(`AcroForm /SigFlags ${how} without a signature`),
      );
    } else out.push(other(`AcroForm /${key} ${how}`));
  }
  return out;
}

/** Items added to or removed from an array of references (/Fields, /Annots). */
function arrayDiff(before: PdfObject, after: PdfObject): { added: number[]; removed: number; direct: boolean } {
  const nums = (a: PdfObject): number[] =>
    a instanceof PdfArray ? a.items.filter((i): i is PdfRef => i instanceof PdfRef).map((i) => i.num) : [];
  const old = new Set(nums(before));
  const now = nums(after);
  const direct = after instanceof PdfArray && after.items.some((i) => !(i instanceof PdfRef));
  return { added: now.filter((n) => !old.has(n)), removed: [...old].filter((n) => !now.includes(n)).length, direct };
}

function growthVerdicts(scope: DiffScope, where: string, before: PdfObject, after: PdfObject): Verdict[] {
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

const fieldsVerdicts = (scope: DiffScope, before: PdfObject, after: PdfObject): Verdict[] =>
  growthVerdicts(scope, 'AcroForm /Fields', before, after);

function catalogVerdicts(scope: DiffScope, before: PdfDict | undefined, after: PdfDict): Verdict[] {
  const out: Verdict[] = [];
  const { reader: rb } = scope.before;
  const { reader: ra } = scope.after;
  for (const { key, how } of changedKeys(before, after)) {
    if (key === 'DSS') out.push({ class: 'ltv', reason: `catalog /DSS ${how}` });
    else if (key === 'Extensions') {
      const old = rb.resolve(before?.get('Extensions') ?? null);
      const now = ra.resolve(after.get('Extensions'));
      const beyond = changedKeys(dictOf(old), dictOf(now)).filter(
        (c) => c.key !== 'ESIC' && !(c.key === 'Type' && c.how === 'added'),
      );
      out.push(
        beyond.length === 0 && now instanceof PdfDict
          ? { class: 'ltv', reason: 'catalog /Extensions /ESIC (PAdES extension level)' }
          : other(`catalog /Extensions ${how} beyond /ESIC`),
      );
    } else if (key === 'AcroForm') {
      const now = after.get('AcroForm');
      if (now instanceof PdfDict || before?.get('AcroForm') instanceof PdfDict) {
        out.push(...acroFormVerdicts(scope, rb.getDict(before, 'AcroForm'), ra.getDict(after, 'AcroForm')));
      } else if (!(now instanceof PdfRef && scope.added.has(now.num))) out.push(other(`catalog /AcroForm ${how}`));
    } else if (key === 'Perms') out.push(permsVerdict(scope, before, after, how));
    else out.push(catalogMetadataVerdict(scope, key, how, after) ?? other(`catalog /${key} ${how}`));
  }
  return out;
}

/** A certification signature adds catalog /Perms /DocMDP pointing at its own new signature dictionary. */
function permsVerdict(scope: DiffScope, before: PdfDict | undefined, after: PdfDict, how: string): Verdict {
  const perms = scope.after.reader.getDict(after, 'Perms');
  const docMdp = perms?.get('DocMDP');
  const sig = docMdp instanceof PdfRef ? scope.newSigs.get(docMdp.num) : undefined;
  if (!before?.has('Perms') && perms?.size === 1 && sig && !sig.docTimestamp) {
    return { class: 'signing', reason: 'catalog /Perms /DocMDP (certification signature)', field: sig.field };
  }
  return other(`catalog /Perms ${how}`);
}

function fieldVerdicts(
  scope: DiffScope,
  node: FieldNode,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
): Verdict[] {
  const label = `field "${node.name}"`;
  const signing = node.type === 'Sig' ? signedNow(scope, node.name) : undefined;
  return changedKeys(before, after).map(({ key, how }): Verdict => {
    if (node.type === 'Sig') {
      if (key === 'V' && before?.has('V')) {
        return other(`signature ${label}: its signature (/V) was replaced`, node.name);
      }
      if ((key === 'V' || key === 'AP') && signing) {
        return as(signing, key === 'V' ? `signature ${label} signed (/V)` : `appearance (/AP) of signature ${label}`);
      }
      // The annotation flags of the widget being signed (pyHanko's signer makes it printable): only its own look.
      if (key === 'F' && signing && node.widget) return as(signing, `annotation flags (/F) of signature ${label}`);
      return other(
        `signature ${label}: /${key} ${how}${signing ? '' : ' (the field is not signed in this revision)'}`,
        node.name,
      );
    }
    if (['V', 'AP', 'AS'].includes(key) && node.terminal) {
      return { class: 'form_filling', reason: `${label} /${key}`, field: node.name };
    }
    // A kid widget of a field (a radio button's options, say) carries its own state and appearance.
    if (['AP', 'AS'].includes(key) && node.widget && !node.field) {
      return { class: 'form_filling', reason: `${label} widget /${key}`, field: node.name };
    }
    return other(`${label}: /${key} ${how}`, node.name);
  });
}

/** An existing object this revision writes again. */
export function classifyChanged(scope: DiffScope, num: number, before: PdfObject, after: PdfObject): Verdict[] {
  const { before: fb, after: fa } = scope;
  if (sameObject(before, after)) {
    // An /Info or XMP stream written again as it was is what signing tools do (pyHanko's own test files); harmless.
    const meta = metadataObjectVerdict(scope, num, before, after);
    if (meta?.class === 'metadata') return [meta];
    return [other(`object ${num} (${describe(after)}) redefined without change`)];
  }
  const bd = dictOf(before);
  const ad = dictOf(after);
  if (num === fa.catalogNum && ad) return catalogVerdicts(scope, num === fb.catalogNum ? bd : undefined, ad);
  if (num === fa.acroFormNum || num === fb.acroFormNum) return acroFormVerdicts(scope, bd, ad);
  const page = fa.pages.get(num) ?? fb.pages.get(num);
  if (page !== undefined) {
    return changedKeys(bd, ad).flatMap(({ key, how }) =>
      key === 'Annots'
        ? growthVerdicts(
            scope,
            `page ${page + 1} /Annots`,
            fb.reader.resolve(bd?.get(key) ?? null),
            fa.reader.resolve(ad?.get(key) ?? null),
          )
        : [other(`page ${page + 1} /${key} ${how}`)],
    );
  }
  const annotsOf = fa.annotsArrays.get(num);
  if (annotsOf !== undefined) return growthVerdicts(scope, `page ${annotsOf + 1} /Annots`, before, after);
  const fieldsArray = fa.reader.getDict(fa.reader.catalog, 'AcroForm')?.get('Fields');
  if (fieldsArray instanceof PdfRef && fieldsArray.num === num) return fieldsVerdicts(scope, before, after);
  const node = fa.fields.get(num) ?? fb.fields.get(num);
  if (node) return fieldVerdicts(scope, node, bd, ad);
  const sig = fb.sigDicts.get(num);
  if (sig) return [other(`signature dictionary of field "${sig.field}" rewritten`, sig.field)];
  if (fa.dss.has(num) && fb.dss.has(num) && !(after instanceof PdfStream)) {
    return [{ class: 'ltv', reason: `validation data (/DSS ${describe(after)}) updated` }];
  }
  const content = fa.contents.get(num) ?? fb.contents.get(num);
  if (content !== undefined) return [other(`page ${content + 1} content stream (object ${num}) rewritten`)];
  const annot = fa.annots.get(num) ?? fb.annots.get(num);
  if (annot !== undefined) return [other(`existing annotation ${describe(after)} on page ${annot + 1} rewritten`)];
  const meta = metadataObjectVerdict(scope, num, before, after);
  if (meta) return [meta];
  const appearance = appearanceOwner(fa, num);
  if (appearance) return [appearanceVerdict(scope, appearance, num)];
  return [other(`existing ${describe(after)} object ${num} rewritten`)];
}

/** A field's indirect /AP dictionary or appearance stream rewritten in place: as a new /AP of that field. */
function appearanceVerdict(scope: DiffScope, { node, role }: AppearanceOwner, num: number): Verdict {
  const what = `${role === 'dictionary' ? 'appearance dictionary (/AP)' : 'appearance stream'} object ${num}`;
  if (node.type !== 'Sig') {
    return { class: 'form_filling', reason: `field "${node.name}" ${what} rewritten`, field: node.name };
  }
  const signing = signedNow(scope, node.name);
  if (signing) return as(signing, `signature field "${node.name}" ${what} rewritten`);
  return other(
    `signature field "${node.name}" ${what} rewritten (the field is not signed in this revision)`,
    node.name,
  );
}
