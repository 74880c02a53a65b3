import { isDeepStrictEqual } from 'node:util';
import { pyLower, pyStrip } from '../../core/python/text.js';
import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { not, truncate, verdict, writtenType } from '../util.js';

type NormalizationForm = 'NFC' | 'NFD' | 'NFKC' | 'NFKD';
const FORMS: ReadonlySet<string> = new Set(['NFC', 'NFD', 'NFKC', 'NFKD']);

/**
 * Reads `options.normalizeUnicode`. `true` means NFC, never NFKC: compatibility folding would
 * score "x2" equal to "x²", which turns a wrong answer into a right one.
 */
function normalization(spec: AssertionSpec): { form?: NormalizationForm; problem?: string } {
  const option = spec.options?.normalizeUnicode;
  if (option === undefined || option === null || option === false) return {};
  if (option === true) return { form: 'NFC' };
  if (typeof option === 'string' && FORMS.has(option.toUpperCase())) {
    return { form: option.toUpperCase() as NormalizationForm };
  }
  return {
    problem: `"normalizeUnicode" must be true, false or one of NFC, NFD, NFKC, NFKD (got ${JSON.stringify(option)})`,
  };
}

/**
 * A string as compared: `options.strip` removes surrounding whitespace as Python's `str.strip`
 * does, `options.ignoreCase` lower-cases as Python's `str.lower()` does (the rule of every tool
 * whose exact match is case-insensitive: pramana and ÈwéBench both compare `.lower()` forms; it
 * differs from JavaScript's toLowerCase on characters newer than Python's Unicode tables), then
 * the optional Unicode normalisation.
 */
function comparable(text: string, spec: AssertionSpec, form: NormalizationForm | undefined): string {
  let out = spec.options?.strip === true ? pyStrip(text) : text;
  if (spec.options?.ignoreCase === true) out = pyLower(out);
  return form ? out.normalize(form) : out;
}

/** `equals`: exact string equality, or deep JSON equality when the expected value is an object. */
function scoreEquals(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const { value, output } = input;
  let equal: boolean;
  let expected: string;
  // promptfoo tests `typeof value === 'object'`, so null is compared structurally too.
  if (typeof value === 'object') {
    try {
      equal = isDeepStrictEqual(value, JSON.parse(output));
    } catch {
      equal = false;
    }
    expected = JSON.stringify(value);
  } else {
    const { form, problem } = normalization(input.spec);
    if (problem) throw new ScorerInputError(problem);
    expected = String(value);
    const [a, b] = [expected, output].map((text) => comparable(text, input.spec, form));
    equal = a === b;
  }
  return verdict(
    equal !== negate,
    `Expected output "${truncate(output)}" to ${not(negate)}equal "${truncate(expected)}"`,
  );
}

export const equalsScorer: Scorer = {
  type: 'equals',
  description: 'Output equals the value exactly (objects and arrays: deep JSON equality)',
  validate(spec) {
    const { problem } = normalization(spec);
    if (problem) return problem;
    // Without a value every output would be compared with "undefined"; an empty string is legal.
    if (spec.value === undefined) return `${writtenType('equals', spec)} needs a value, got no value`;
    if (typeof spec.value === 'function' || typeof spec.value === 'symbol') {
      return '"equals" needs a string, number, boolean, object or array value';
    }
    return undefined;
  },
  score: scoreEquals,
};
