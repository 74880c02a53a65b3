// Text checks with Python's string semantics (`str.strip`, `str.lower`, the `in` operator), as
// suites written for Python harnesses expect them. Each returns the facts it judged on as `details`.
import { pyLower, pyStrip } from '../../core/python/text.js';
import type { ScoreResult, Scorer } from '../types.js';
import { caseSensitive, firstString, quote, stringList, stringOrListProblem } from './python-value.js';

function result(
  pass: boolean,
  negate: boolean,
  reason: string,
  details: Record<string, unknown>,
): ScoreResult {
  const ok = pass !== negate;
  return { pass: ok, score: ok ? 1 : 0, reason: negate ? `not: ${reason}` : reason, details };
}

/** `py-equals`: both sides stripped (and lowercased when case-insensitive), then equal. */
export const pyEqualsScorer: Scorer = {
  type: 'py-equals',
  description:
    "Output equals the value after Python's str.strip (and str.lower unless caseSensitive); a list value uses its first item",
  validate: stringOrListProblem,
  score(input) {
    const sensitive = caseSensitive(input.spec);
    let expected = pyStrip(firstString(input.spec, input.value));
    let got = pyStrip(input.output);
    if (!sensitive) {
      expected = pyLower(expected);
      got = pyLower(got);
    }
    const pass = got === expected;
    const reason = pass
      ? `Output equals ${quote(expected)}`
      : `Expected ${quote(expected)}, got ${quote(got)}`;
    return result(pass, input.spec.negate === true, reason, { expected, got });
  },
};

/** `py-contains`: the value is a substring of the raw output (nothing stripped). */
export const pyContainsScorer: Scorer = {
  type: 'py-contains',
  description:
    'Output contains the value (Python str.lower unless caseSensitive; nothing stripped; an empty value always matches); a list value uses its first item',
  validate: stringOrListProblem,
  score(input) {
    const term = firstString(input.spec, input.value);
    const sensitive = caseSensitive(input.spec);
    const pass = (sensitive ? input.output : pyLower(input.output)).includes(
      sensitive ? term : pyLower(term),
    );
    const reason = pass ? `Output contains ${quote(term)}` : `Output does not contain ${quote(term)}`;
    return result(pass, input.spec.negate === true, reason, { search_term: term });
  },
};

/** `py-contains-any`: the first term, in list order, found in the output; an empty list fails. */
export const pyContainsAnyScorer: Scorer = {
  type: 'py-contains-any',
  description:
    'Output contains one of the values, tried in order (Python str.lower unless caseSensitive); a string value is one term',
  validate: stringOrListProblem,
  score(input) {
    const terms = stringList(input.spec, input.value);
    const sensitive = caseSensitive(input.spec);
    const haystack = sensitive ? input.output : pyLower(input.output);
    const matched = terms.find((t) => haystack.includes(sensitive ? t : pyLower(t)));
    const negate = input.spec.negate === true;
    if (matched !== undefined)
      return result(true, negate, `Output contains ${quote(matched)}`, { matched_term: matched });
    const shown = terms.map((t) => quote(t, 40)).join(', ');
    return result(false, negate, `Output contains none of [${shown}]`, { terms });
  },
};
