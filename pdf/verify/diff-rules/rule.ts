/**
 * The allow-list as data: a rule recognises one kind of change and says its class and reason, in the manner of
 * pyHanko's DiffPolicy rules (DocInfoRule, FormUpdatingRule …). Rules sit in lists, in order (added.ts,
 * rewritten.ts, catalog.ts …); the first that recognises a change judges it, and a change no rule recognises gets
 * the list's fallback (the refusing class `other`, or for a new object "whatever uses it decides").
 */
import type { Verdict } from './scope.js';

export interface DiffRule<Subject, Match = true> {
  /** What the rule is about, for people reading the list ("new signature field", "catalog /DSS" …). */
  readonly name: string;
  /**
   * Whether `subject` is this rule's kind of change: what the rule learned (a page index, the field …), or
   * true; false or undefined when it is not (the next rule is asked).
   */
  readonly recognise: (subject: Subject) => Match | false | undefined;
  /** The class and reason of the recognised change: none, one, or one per way it changed. */
  readonly judge: (subject: Subject, match: Match) => Verdict[];
}

/** A rule as a list holds it: what it learns stays inside, so rules of different kinds share one list. */
export interface ListedRule<Subject> {
  readonly name: string;
  /** The rule's verdicts when it recognises `subject`; undefined when it does not. */
  readonly apply: (subject: Subject) => Verdict[] | undefined;
}

export function rule<Subject, Match = true>(definition: DiffRule<Subject, Match>): ListedRule<Subject> {
  const { name, recognise, judge } = definition;
  return {
    name,
    apply: (subject) => {
      const match = recognise(subject);
      return match === undefined || match === false ? undefined : judge(subject, match);
    },
  };
}

/** The verdicts of the first rule in `rules` that recognises `subject`; `unmatched`'s answer when none does. */
export function firstMatch<Subject, Unmatched>(
  rules: readonly ListedRule<Subject>[],
  subject: Subject,
  unmatched: (subject: Subject) => Unmatched,
): Verdict[] | Unmatched {
  for (const r of rules) {
    const verdicts = r.apply(subject);
    if (verdicts !== undefined) return verdicts;
  }
  return unmatched(subject);
}

/** Each subject (each changed key of a dictionary, say) judged by the first rule that recognises it. */
export function judgeEach<Subject>(
  rules: readonly ListedRule<Subject>[],
  subjects: readonly Subject[],
  unmatched: (subject: Subject) => Verdict[],
): Verdict[] {
  return subjects.flatMap((subject) => firstMatch(rules, subject, unmatched));
}
