import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { nGrams, stringValue, stringValueProblem, thresholdOr } from './shared.js';

/** promptfoo's default rouge-n threshold. */
const DEFAULT_THRESHOLD = 0.75;

/** Uncommon contractions the Penn Treebank splits in two (js-rouge replaces the first of each only). */
const CONTRACTIONS: readonly RegExp[] = [
  /\b(can)(not)\b/i,
  /\b(d)('ye)\b/i,
  /\b(gim)(me)\b/i,
  /\b(gon)(na)\b/i,
  /\b(got)(ta)\b/i,
  /\b(lem)(me)\b/i,
  /\b(more)('n)\b/i,
  /\b(wan)(na) /i,
  / ('t)(is)\b/i,
  / ('t)(was)\b/i,
];

/**
 * Penn Treebank word tokens, as js-rouge (the library promptfoo's rouge-n calls) splits a sentence:
 * punctuation, brackets, quotes and clitics ('s, n't, 'll…) become tokens of their own, and only
 * a final period is split off. Whitespace runs (newlines included) first become single spaces, as
 * newer js-rouge does, so a multi-line answer is not glued into one token per line break.
 */
export function treebankTokens(input: string): string[] {
  const text = input.replace(/\s+/g, ' ').trim();
  if (text === '') return [];
  let s = text
    .replace(/^"/, ' `` ')
    .replace(/([ ([{<])"/g, '$1 `` ')
    .replace(/\.\.\.*/g, ' ... ')
    .replace(/[;@#$%&]/g, ' $& ')
    .replace(/([^.])(\.)([\])}>"']*)\s*$/g, '$1 $2$3 ')
    .replace(/[,?!]/g, ' $& ')
    .replace(/[\][(){}<>]/g, ' $& ')
    .replace(/---*/g, ' -- ');
  s = ` ${s} `
    .replace(/"/g, " '' ")
    .replace(/([^'])' /g, "$1 ' ")
    .replace(/'([sSmMdD]) /g, " '$1 ")
    .replace(/('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g, ' $1 ');
  for (const contraction of CONTRACTIONS) s = s.replace(contraction, ' $1 $2 ');
  return s.split(' ').filter((token) => token !== '');
}

/**
 * ROUGE-N as js-rouge's `n()` computes it: the number of *distinct* candidate n-grams found in the
 * reference, over the number of reference n-grams (recall). Inputs are lower-cased first (newer
 * promptfoo). A repeated reference word therefore keeps even an identical text below 1, exactly as
 * in promptfoo. A candidate with fewer than n tokens scores 0 (newer promptfoo; js-rouge threw).
 */
export function rougeN(candidate: string, reference: string, n = 1): number {
  const referenceGrams = nGrams(treebankTokens(reference.toLowerCase()), n);
  if (referenceGrams.length === 0) {
    throw new ScorerInputError(`"rouge-n" reference has fewer than ${n} word(s)`);
  }
  const candidateGrams = new Set(nGrams(treebankTokens(candidate.toLowerCase()), n));
  const inReference = new Set(referenceGrams);
  let shared = 0;
  for (const gram of candidateGrams) if (inReference.has(gram)) shared++;
  return shared / referenceGrams.length;
}

function scoreRougeN(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const reference = stringValue('rouge-n', input.value);
  const threshold = thresholdOr(input.spec, DEFAULT_THRESHOLD);
  const score = rougeN(input.output, reference);
  const reached = score >= threshold;
  return {
    pass: reached !== negate,
    // Negated, the score is inverted so "higher is better" still holds for the case score.
    score: negate ? 1 - score : score,
    reason: `ROUGE-N score ${score.toFixed(2)} is ${reached ? 'greater than or equal to' : 'less than'} threshold ${threshold}`,
  };
}

/** `rouge-n`: unigram recall against the value ≥ threshold (default 0.75). */
export const rougeNScorer: Scorer = {
  type: 'rouge-n',
  description:
    'ROUGE-N (unigram recall, as js-rouge) against the value is at least the threshold (default 0.75)',
  validate: (spec) => stringValueProblem('rouge-n', spec, true),
  score: scoreRougeN,
};
