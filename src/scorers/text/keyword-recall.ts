import { pyLower } from '../../core/python/text.js';
import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, truncate } from '../util.js';

/** What an empty keyword list scores: a number, or `skip` (left out of the case score). */
type IfEmpty = number | 'skip';

function ifEmptyOption(spec: AssertionSpec): IfEmpty {
  const v = spec.options?.ifEmpty;
  if (v === undefined) return 'skip';
  if (v === 'skip' || (typeof v === 'number' && v >= 0 && v <= 1)) return v;
  throw new ScorerInputError(`"ifEmpty" must be a number in [0, 1] or "skip", got ${JSON.stringify(v)}`);
}

function keywords(value: unknown): string[] {
  if (!Array.isArray(value))
    throw new ScorerInputError(`"keyword-recall" needs a list of keywords, got ${describeShape(value)}`);
  return value.map((k, i) => {
    if (typeof k === 'string') return k;
    throw new ScorerInputError(`"keyword-recall" keyword ${i + 1} must be a string, got ${describeShape(k)}`);
  });
}

/**
 * `keyword-recall`: the fraction of keywords found in the output as substrings (no word
 * boundaries, no Unicode normalisation; duplicates count each time). Case-insensitive unless
 * `options.caseSensitive`. Passes when the fraction reaches `threshold` (default 1).
 */
function scoreKeywordRecall(input: ScoreInput): ScoreResult {
  const list = keywords(input.value);
  const ifEmpty = ifEmptyOption(input.spec);
  if (list.length === 0) {
    if (ifEmpty === 'skip') return { pass: true, score: 0, reason: 'No keywords to look for', skip: true };
    return {
      pass: ifEmpty >= (input.spec.threshold ?? 1),
      score: ifEmpty,
      reason: 'No keywords to look for',
    };
  }
  // Case-insensitive as the tools that count keywords are (ÈwéBench's `kw.lower() in
  // response.lower()`; apastra's keyword_recall): Python's str.lower(), not JavaScript's.
  const caseSensitive = input.spec.options?.caseSensitive === true;
  const haystack = caseSensitive ? input.output : pyLower(input.output);
  const missing: string[] = [];
  let found = 0;
  for (const k of list) {
    if (haystack.includes(caseSensitive ? k : pyLower(k))) found++;
    else missing.push(k);
  }
  const score = found / list.length;
  const threshold = input.spec.threshold ?? 1;
  const pass = score >= threshold !== (input.spec.negate === true);
  const reason =
    missing.length === 0
      ? `All ${list.length} keywords found`
      : `${found}/${list.length} keywords found; missing: ${truncate(missing.join(', '))}`;
  return { pass, score, reason, details: { found, total: list.length } };
}

export const keywordRecallScorer: Scorer = {
  type: 'keyword-recall',
  description: 'Fraction of the keywords the output contains (substring match, case-insensitive by default)',
  validate(spec) {
    try {
      keywords(spec.value);
      ifEmptyOption(spec);
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score: scoreKeywordRecall,
};
