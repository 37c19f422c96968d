/**
 * The engine of the allow-list's rules (pdf/verify/diff-rules/rule.ts): the first rule that recognises a change
 * judges it, in list order; what a rule learned reaches its judgement, even when it is 0 (a page index); what no
 * rule recognises gets the fallback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstMatch, judgeEach, rule } from '../../../pdf/verify/diff-rules/rule.js';
import { other } from '../../../pdf/verify/diff-rules/scope.js';

interface Subject {
  readonly key: string;
  readonly page?: number;
}

const RULES = [
  rule<Subject>({
    name: 'refused /V',
    recognise: ({ key }) => key === 'V',
    judge: () => [other('refused first')],
  }),
  rule<Subject>({
    name: 'allowed /V',
    recognise: ({ key }) => key === 'V',
    judge: () => [{ class: 'form_filling', reason: 'never reached' }],
  }),
  rule<Subject, number>({
    name: 'on a page',
    recognise: ({ page }) => page,
    judge: (_, page) => [{ class: 'annotations', reason: `page ${page + 1}` }],
  }),
  rule<Subject>({
    name: 'recognised, nothing to say',
    recognise: ({ key }) => key === 'Silent',
    judge: () => [],
  }),
];

const fallback = ({ key }: Subject) => [other(`unrecognised /${key}`)];

describe('the allow-list rules engine', () => {
  test('the first rule in the list that recognises a change judges it', () => {
    assert.deepEqual(firstMatch(RULES, { key: 'V' }, fallback), [{ class: 'other', reason: 'refused first' }]);
  });

  test('what a rule learned reaches its judgement, page index 0 included', () => {
    assert.deepEqual(firstMatch(RULES, { key: 'Annots', page: 0 }, fallback), [
      { class: 'annotations', reason: 'page 1' },
    ]);
  });

  test('a rule that judges a change as nothing stops the list; no rule at all gets the fallback', () => {
    assert.deepEqual(firstMatch(RULES, { key: 'Silent' }, fallback), []);
    assert.deepEqual(firstMatch(RULES, { key: 'OpenAction' }, fallback), [
      { class: 'other', reason: 'unrecognised /OpenAction' },
    ]);
    assert.equal(
      firstMatch(RULES, { key: 'OpenAction' }, () => undefined),
      undefined,
    );
  });

  test('judgeEach judges every subject in turn', () => {
    const verdicts = judgeEach(RULES, [{ key: 'V' }, { key: 'Lang' }], fallback);
    assert.deepEqual(
      verdicts.map((v) => v.reason),
      ['refused first', 'unrecognised /Lang'],
    );
  });
});
