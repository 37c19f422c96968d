/** The rules for an existing object this revision writes again, in order; one no rule recognises is `other`. */
import { PdfRef, PdfStream, type PdfDict } from '../../objects.js';
import { appearanceOwner, type AppearanceOwner } from '../diff-appearance.js';
import type { FieldNode, RevisionFacts, SigDictInfo } from '../diff-facts.js';
import { describe, sameObject } from '../diff-util.js';
import { acroFormVerdicts } from './acroform.js';
import { fieldsVerdicts, growthVerdicts } from './arrays.js';
import { catalogVerdicts } from './catalog.js';
import { appearanceVerdict, fieldVerdicts } from './fields.js';
import { METADATA_OBJECT_REWRITTEN, METADATA_OBJECT_WRITTEN_AGAIN } from './metadata.js';
import { pageVerdicts } from './pages.js';
import { rule } from './rule.js';
import { other, type RewrittenObject } from './scope.js';

/** What the object is now, or else was in the signed revision, by one of the revision facts' maps (pages …). */
const either = <T>(
  { scope, num }: RewrittenObject,
  map: (facts: RevisionFacts) => ReadonlyMap<number, T>,
): T | undefined => map(scope.after).get(num) ?? map(scope.before).get(num);

export const REWRITTEN_RULES = [
  METADATA_OBJECT_WRITTEN_AGAIN,
  rule<RewrittenObject>({
    name: 'written again without change',
    recognise: ({ before, after }) => sameObject(before, after),
    judge: ({ num, after }) => [other(`object ${num} (${describe(after)}) redefined without change`)],
  }),
  rule<RewrittenObject, PdfDict>({
    name: 'document catalog',
    recognise: ({ scope, num, afterDict }) => (num === scope.after.catalogNum ? afterDict : undefined),
    judge: ({ scope, num, beforeDict }, afterDict) =>
      catalogVerdicts(scope, num === scope.before.catalogNum ? beforeDict : undefined, afterDict),
  }),
  rule<RewrittenObject>({
    name: 'AcroForm',
    recognise: ({ scope, num }) => num === scope.after.acroFormNum || num === scope.before.acroFormNum,
    judge: ({ scope, beforeDict, afterDict }) => acroFormVerdicts(scope, beforeDict, afterDict),
  }),
  rule<RewrittenObject, number>({
    name: 'page',
    recognise: (rewritten) => either(rewritten, (f) => f.pages),
    judge: pageVerdicts,
  }),
  rule<RewrittenObject, number>({
    name: 'indirect /Annots array of a page',
    recognise: ({ scope, num }) => scope.after.annotsArrays.get(num),
    judge: ({ scope, before, after }, page) => growthVerdicts(scope, `page ${page + 1} /Annots`, before, after),
  }),
  rule<RewrittenObject>({
    name: 'indirect /AcroForm /Fields array',
    recognise: ({ scope: { after }, num }) => {
      const fields = after.reader.getDict(after.reader.catalog, 'AcroForm')?.get('Fields');
      return fields instanceof PdfRef && fields.num === num;
    },
    judge: ({ scope, before, after }) => fieldsVerdicts(scope, before, after),
  }),
  rule<RewrittenObject, FieldNode>({
    name: 'form field or widget',
    recognise: (rewritten) => either(rewritten, (f) => f.fields),
    judge: ({ scope, beforeDict, afterDict }, node) => fieldVerdicts(scope, node, beforeDict, afterDict),
  }),
  rule<RewrittenObject, SigDictInfo>({
    name: 'signature dictionary rewritten',
    recognise: ({ scope, num }) => scope.before.sigDicts.get(num),
    judge: (_, sig) => [other(`signature dictionary of field "${sig.field}" rewritten`, sig.field)],
  }),
  rule<RewrittenObject>({
    name: 'validation data (/DSS) updated',
    recognise: ({ scope, num, after }) =>
      scope.after.dss.has(num) && scope.before.dss.has(num) && !(after instanceof PdfStream),
    judge: ({ after }) => [{ class: 'ltv', reason: `validation data (/DSS ${describe(after)}) updated` }],
  }),
  rule<RewrittenObject, number>({
    name: 'content stream',
    recognise: (rewritten) => either(rewritten, (f) => f.contents),
    judge: ({ num }, page) => [other(`page ${page + 1} content stream (object ${num}) rewritten`)],
  }),
  rule<RewrittenObject, number>({
    name: 'annotation',
    recognise: (rewritten) => either(rewritten, (f) => f.annots),
    judge: ({ after }, page) => [other(`existing annotation ${describe(after)} on page ${page + 1} rewritten`)],
  }),
  METADATA_OBJECT_REWRITTEN,
  rule<RewrittenObject, AppearanceOwner>({
    name: "a field's appearance dictionary or stream",
    recognise: ({ scope, num }) => appearanceOwner(scope.after, num),
    judge: ({ scope, num }, owner) => [appearanceVerdict(scope, owner, num)],
  }),
];
