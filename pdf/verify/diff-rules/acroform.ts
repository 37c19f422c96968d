/** The keys of the interactive form dictionary (/AcroForm) a revision may change: /Fields and /SigFlags. */
import type { PdfDict } from '../../objects.js';
import type { SigDictInfo } from '../diff-facts.js';
import { fieldsVerdicts } from './arrays.js';
import { judgeEach, rule } from './rule.js';
import { keyChanges, other, type DiffScope, type KeyChange, type Verdict } from './scope.js';

const ACROFORM_KEY_RULES = [
  rule<KeyChange>({
    name: 'AcroForm /Fields gains new fields',
    recognise: ({ key }) => key === 'Fields',
    judge: ({ scope, before, after }) =>
      fieldsVerdicts(
        scope,
        scope.before.reader.resolve(before?.get('Fields') ?? null),
        scope.after.reader.resolve(after?.get('Fields') ?? null),
      ),
  }),
  rule<KeyChange, SigDictInfo>({
    name: 'AcroForm /SigFlags of a new signature',
    recognise: ({ key, scope }) => key === 'SigFlags' && [...scope.newSigs.values()][0],
    judge: (_, sig) => [
      { class: sig.docTimestamp ? 'ltv' : 'signing', reason: 'AcroForm /SigFlags', field: sig.field },
    ],
  }),
  rule<KeyChange>({
    name: 'AcroForm /SigFlags without a signature',
    recognise: ({ key }) => key === 'SigFlags',
    judge: ({ how }) => [other(`AcroForm /SigFlags ${how} without a signature`)],
  }),
];

/** The AcroForm's changed keys, as its rules judge them; any other key is `other`. */
export function acroFormVerdicts(scope: DiffScope, before: PdfDict | undefined, after: PdfDict | undefined): Verdict[] {
  return judgeEach(ACROFORM_KEY_RULES, keyChanges(scope, before, after), ({ key, how }) => [
    other(`AcroForm /${key} ${how}`),
  ]);
}
