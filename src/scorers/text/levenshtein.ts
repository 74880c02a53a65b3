import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { stringValue, stringValueProblem, thresholdOr } from './shared.js';

/** promptfoo's default maximum distance when the assertion gives no threshold. */
const DEFAULT_MAX_DISTANCE = 5;

/**
 * Edit distance (insertions, deletions, substitutions, each costing 1) between two strings, counted
 * in UTF-16 code units as promptfoo's `fastest-levenshtein` counts them: an emoji is two units, and
 * "é" precomposed differs from "e" + combining accent. Same verdicts as promptfoo matter more here
 * than a per-grapheme distance would.
 */
export function levenshteinDistance(a: string, b: string): number {
  if (a === b) return 0;
  // Common prefix and suffix never change the distance; dropping them keeps long near-equal texts cheap.
  let start = 0;
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  let s = a.slice(start, endA);
  let t = b.slice(start, endB);
  if (s.length < t.length) [s, t] = [t, s];
  if (t.length === 0) return s.length;
  // One row of the DP table over the shorter string: O(|s|·|t|) time, O(|t|) memory.
  const row = new Array<number>(t.length + 1);
  for (let j = 0; j <= t.length; j++) row[j] = j;
  for (let i = 1; i <= s.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    const si = s.charCodeAt(i - 1);
    for (let j = 1; j <= t.length; j++) {
      const above = row[j];
      const cost = si === t.charCodeAt(j - 1) ? 0 : 1;
      row[j] = Math.min(above + 1, row[j - 1] + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[t.length];
}

function scoreLevenshtein(input: ScoreInput): ScoreResult {
  const expected = stringValue('levenshtein', input.value);
  // `??`, not `||`: newer promptfoo takes threshold 0 as "exact match only" (spec §5.2).
  const threshold = thresholdOr(input.spec, DEFAULT_MAX_DISTANCE);
  const distance = levenshteinDistance(input.output, expected);
  // promptfoo 0.123.1 honours `not-`: a negated check passes when the distance exceeds the threshold.
  const negate = input.spec.negate === true;
  const pass = distance <= threshold !== negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass
      ? 'Assertion passed'
      : `Levenshtein distance ${distance} is ${negate ? 'less than or equal to' : 'greater than'} threshold ${threshold}`,
  };
}

/** `levenshtein`: edit distance to the value ≤ threshold (default 5); `not-` inverts it. */
export const levenshteinScorer: Scorer = {
  type: 'levenshtein',
  description: 'Output is within an edit distance of the value (threshold, default 5)',
  validate: (spec) => stringValueProblem('levenshtein', spec, false),
  score: scoreLevenshtein,
};
