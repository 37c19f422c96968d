/**
 * The keys of the document catalog a revision may change: /DSS and /Extensions /ESIC (validation data), the
 * /AcroForm, /Perms /DocMDP of a certification made now, and the metadata keys (metadata.ts).
 */
import { PdfDict, PdfRef } from '../../objects.js';
import { changedKeys, dictOf } from '../diff-util.js';
import { acroFormVerdicts } from './acroform.js';
import { CATALOG_METADATA, CATALOG_VERSION } from './metadata.js';
import { judgeEach, rule } from './rule.js';
import { keyChanges, other, type DiffScope, type KeyChange, type Verdict } from './scope.js';

type CatalogKeyChange = KeyChange<PdfDict>;

/** Catalog /Extensions changed only by its PAdES entry /ESIC (and a /Type added). */
function extensionsVerdict({ scope, how, before, after }: CatalogKeyChange): Verdict {
  const old = scope.before.reader.resolve(before?.get('Extensions') ?? null);
  const now = scope.after.reader.resolve(after.get('Extensions'));
  const beyond = changedKeys(dictOf(old), dictOf(now)).filter(
    (c) => c.key !== 'ESIC' && !(c.key === 'Type' && c.how === 'added'),
  );
  return beyond.length === 0 && now instanceof PdfDict
    ? { class: 'ltv', reason: 'catalog /Extensions /ESIC (PAdES extension level)' }
    : other(`catalog /Extensions ${how} beyond /ESIC`);
}

/** A certification signature adds catalog /Perms /DocMDP pointing at its own new signature dictionary. */
function permsVerdict({ scope, how, before, after }: CatalogKeyChange): Verdict {
  const perms = scope.after.reader.getDict(after, 'Perms');
  const docMdp = perms?.get('DocMDP');
  const sig = docMdp instanceof PdfRef ? scope.newSigs.get(docMdp.num) : undefined;
  if (!before?.has('Perms') && perms?.size === 1 && sig && !sig.docTimestamp) {
    return { class: 'signing', reason: 'catalog /Perms /DocMDP (certification signature)', field: sig.field };
  }
  return other(`catalog /Perms ${how}`);
}

const CATALOG_KEY_RULES = [
  rule<CatalogKeyChange>({
    name: 'catalog /DSS',
    recognise: ({ key }) => key === 'DSS',
    judge: ({ how }) => [{ class: 'ltv', reason: `catalog /DSS ${how}` }],
  }),
  rule<CatalogKeyChange>({
    name: 'catalog /Extensions /ESIC',
    recognise: ({ key }) => key === 'Extensions',
    judge: (change) => [extensionsVerdict(change)],
  }),
  rule<CatalogKeyChange>({
    name: 'catalog /AcroForm written in the catalog',
    recognise: ({ key, before, after }) =>
      key === 'AcroForm' && (after.get('AcroForm') instanceof PdfDict || before?.get('AcroForm') instanceof PdfDict),
    judge: ({ scope, before, after }) =>
      acroFormVerdicts(
        scope,
        scope.before.reader.getDict(before, 'AcroForm'),
        scope.after.reader.getDict(after, 'AcroForm'),
      ),
  }),
  // The new AcroForm object is judged on its own (added.ts); the reference to it says nothing more.
  rule<CatalogKeyChange>({
    name: 'catalog /AcroForm pointed at a new AcroForm',
    recognise: ({ key, scope, after }) => {
      const now = after.get('AcroForm');
      return key === 'AcroForm' && now instanceof PdfRef && scope.added.has(now.num);
    },
    judge: () => [],
  }),
  rule<CatalogKeyChange>({
    name: 'catalog /Perms /DocMDP of a certification',
    recognise: ({ key }) => key === 'Perms',
    judge: (change) => [permsVerdict(change)],
  }),
  CATALOG_VERSION,
  CATALOG_METADATA,
];

/** The catalog's changed keys, as its rules judge them; any other key is `other`. */
export function catalogVerdicts(scope: DiffScope, before: PdfDict | undefined, after: PdfDict): Verdict[] {
  return judgeEach(CATALOG_KEY_RULES, keyChanges(scope, before, after), ({ key, how }) => [
    other(`catalog /${key} ${how}`),
  ]);
}
