/**
 * The rules for an object this revision adds, in order. An object no rule recognises (an appearance stream, a
 * font, an image) does not say what it is: it takes the class of whatever uses it (diff.ts).
 */
import { PdfName, PdfRef, type PdfDict } from '../../objects.js';
import type { FieldNode, SigDictInfo } from '../diff-facts.js';
import { referenceProblem } from '../diff-locks.js';
import { describe } from '../diff-util.js';
import { signatureShapeProblems } from '../sig-shape.js';
import { acroFormVerdicts } from './acroform.js';
import { newFieldVerdict } from './fields.js';
import { NEW_METADATA_OBJECT } from './metadata.js';
import { rule } from './rule.js';
import { other, type AddedObject, type DiffScope, type Verdict } from './scope.js';

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

/** The signature dictionary `num` is the document's certification, made in this revision over an unsigned document. */
function certifiesNow(scope: DiffScope, num: number): boolean {
  const { before, after } = scope;
  const perms = after.reader.getDict(after.reader.catalog, 'Perms')?.get('DocMDP');
  return (
    perms instanceof PdfRef && perms.num === num && !before.reader.catalog.has('Perms') && before.sigDicts.size === 0
  );
}

/** A new signature dictionary: signing (or ltv, a document timestamp) when its shape and /Reference are sound. */
function newSignatureVerdict({ scope, num, dict }: AddedObject, sig: SigDictInfo): Verdict {
  const what = sig.docTimestamp
    ? `document timestamp of field "${sig.field}"`
    : `signature dictionary of field "${sig.field}"`;
  const shape = dict ? signatureShapeProblems(scope.after.reader, dict) : ['not a dictionary'];
  const reference = dict
    ? referenceProblem(scope.before, scope.after.reader, dict, sig.field, {
        certifies: certifiesNow(scope, num),
        withinFieldLock: scope.locksWithinFieldLock,
        lockable: scope.lockableFields,
      })
    : null;
  if (reference) shape.push(reference);
  if (shape.length > 0) return other(`${what}: ${shape.join('; ')}`, sig.field);
  return { class: sig.docTimestamp ? 'ltv' : 'signing', reason: what, field: sig.field };
}

const annotationLabel = (d: PdfDict | undefined): string => {
  const subtype = d?.get('Subtype');
  return subtype instanceof PdfName ? `/${subtype.name}` : 'without /Subtype';
};

function isMarkup(d: PdfDict | undefined): boolean {
  const subtype = d?.get('Subtype');
  return subtype instanceof PdfName && MARKUP.has(subtype.name) && !d?.has('A') && !d?.has('AA');
}

export const ADDED_RULES = [
  rule<AddedObject, string>({
    name: 'cross-reference stream or object stream',
    recognise: ({ dict }) => {
      const type = dict?.get('Type');
      return type instanceof PdfName && (type.name === 'XRef' || type.name === 'ObjStm') ? type.name : undefined;
    },
    judge: (_, type) => [{ class: 'structure', reason: `cross-reference data (/${type})` }],
  }),
  rule<AddedObject, SigDictInfo>({
    name: 'new signature dictionary or document timestamp',
    recognise: ({ scope, num }) => scope.newSigs.has(num) && scope.after.sigDicts.get(num),
    judge: (added, sig) => [newSignatureVerdict(added, sig)],
  }),
  rule<AddedObject, FieldNode>({
    name: 'new form field or widget',
    recognise: ({ scope, num }) => scope.after.fields.get(num),
    judge: ({ scope, dict }, node) => [newFieldVerdict(scope, node, dict)],
  }),
  rule<AddedObject>({
    name: 'new document catalog',
    recognise: ({ scope, num }) => num === scope.after.catalogNum,
    judge: () => [other('new document catalog (the trailer /Root points to it)')],
  }),
  rule<AddedObject, number>({
    name: 'new page',
    recognise: ({ scope, num }) => scope.after.pages.get(num),
    judge: (_, page) => [other(`new page ${page + 1}`)],
  }),
  rule<AddedObject, number>({
    name: 'new content stream',
    recognise: ({ scope, num }) => scope.after.contents.get(num),
    judge: (_, page) => [other(`new content stream on page ${page + 1}`)],
  }),
  rule<AddedObject, number>({
    name: 'new markup annotation without actions',
    recognise: ({ scope, num, dict }) => (isMarkup(dict) ? scope.after.annots.get(num) : undefined),
    judge: ({ dict }, page) => [
      {
        class: 'annotations',
        reason: `new annotation ${annotationLabel(dict)} on page ${page + 1} (not a widget of a form field)`,
      },
    ],
  }),
  rule<AddedObject, number>({
    name: 'new annotation of another kind',
    recognise: ({ scope, num }) => scope.after.annots.get(num),
    judge: ({ dict }, page) => [
      other(`new annotation ${annotationLabel(dict)} on page ${page + 1} not a widget of a field`),
    ],
  }),
  rule<AddedObject>({
    name: 'new AcroForm',
    recognise: ({ scope, num }) => num === scope.after.acroFormNum,
    judge: ({ scope, dict }) =>
      acroFormVerdicts(scope, scope.before.reader.getDict(scope.before.reader.catalog, 'AcroForm'), dict),
  }),
  rule<AddedObject>({
    name: 'new validation data (/DSS)',
    recognise: ({ scope, num }) => scope.after.dss.has(num),
    judge: ({ obj }) => [{ class: 'ltv', reason: `validation data (/DSS ${describe(obj)})` }],
  }),
  NEW_METADATA_OBJECT,
];
