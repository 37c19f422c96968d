/** A page's keys: a revision may only add annotations to its /Annots (each judged as the new object it is). */
import { growthVerdicts } from './arrays.js';
import { judgeEach, rule } from './rule.js';
import { keyChanges, other, type KeyChange, type RewrittenObject, type Verdict } from './scope.js';

/** A key of a page dictionary that changed; `page` is 0-based. */
interface PageKeyChange extends KeyChange {
  readonly page: number;
}

const PAGE_KEY_RULES = [
  rule<PageKeyChange>({
    name: 'page /Annots gains new annotations',
    recognise: ({ key }) => key === 'Annots',
    judge: ({ scope, page, key, before, after }) =>
      growthVerdicts(
        scope,
        `page ${page + 1} /Annots`,
        scope.before.reader.resolve(before?.get(key) ?? null),
        scope.after.reader.resolve(after?.get(key) ?? null),
      ),
  }),
];

/** A page dictionary rewritten: each changed key as the rules judge it; any other key is `other`. */
export function pageVerdicts({ scope, beforeDict, afterDict }: RewrittenObject, page: number): Verdict[] {
  const changes = keyChanges(scope, beforeDict, afterDict).map((c) => ({ ...c, page }));
  return judgeEach(PAGE_KEY_RULES, changes, ({ key, how }) => [other(`page ${page + 1} /${key} ${how}`)]);
}
