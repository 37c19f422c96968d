/**
 * Classifies one object a revision added or changed: the first rule of the allow-list that recognises it says its
 * class and reason (diff-rules/, one list per kind of object or dictionary). An allow-list: a change is `signing`,
 * `form_filling`, `ltv`, `metadata` or `annotations` only when a rule positively recognises it as such; anything
 * else is `other`, with a reason a person can read. How to add a rule: diff-rules/README.md.
 */
import type { PdfObject } from '../objects.js';
import { dictOf, describe } from './diff-util.js';
import { ADDED_RULES } from './diff-rules/added.js';
import { REWRITTEN_RULES } from './diff-rules/rewritten.js';
import { firstMatch } from './diff-rules/rule.js';
import { other, type DiffScope, type Verdict } from './diff-rules/scope.js';

/** An added object that says what it is; undefined when only its referrers can tell (appearance streams, fonts …). */
export function classifyAdded(scope: DiffScope, num: number, obj: PdfObject): Verdict[] | undefined {
  return firstMatch(ADDED_RULES, { scope, num, obj, dict: dictOf(obj) }, () => undefined);
}

/** An existing object this revision writes again. */
export function classifyChanged(scope: DiffScope, num: number, before: PdfObject, after: PdfObject): Verdict[] {
  const rewritten = { scope, num, before, after, beforeDict: dictOf(before), afterDict: dictOf(after) };
  return firstMatch(REWRITTEN_RULES, rewritten, () => [other(`existing ${describe(after)} object ${num} rewritten`)]);
}
