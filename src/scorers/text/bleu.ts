// BLEU and GLEU, the n-gram overlap metrics promptfoo computes itself (`bleu.ts`, `gleu.ts`).
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import {
  clippedMatches,
  countGrams,
  nGrams,
  referencesProblem,
  referenceTexts,
  thresholdOr,
} from './shared.js';

/** Both metrics' default threshold in promptfoo. */
const DEFAULT_THRESHOLD = 0.5;
/** BLEU-4 with uniform weights. */
const MAX_N = 4;
/** What a zero n-gram precision is replaced with, so one missing order does not zero the geometric mean. */
const ZERO_PRECISION = 1e-7;

/** Lower-cased whitespace tokens; no tokens for blank text (split on "" would give one empty token). */
function words(text: string): string[] {
  const trimmed = text.toLowerCase().trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

/**
 * The reference length closest to the candidate's, the shorter one on a tie (newer promptfoo and
 * NLTK's `closest_ref_length`), so the score does not depend on the order references are listed in.
 */
function closestLength(candidateLength: number, referenceLengths: readonly number[]): number {
  return referenceLengths.reduce((best, length) => {
    const d = Math.abs(length - candidateLength);
    const bestD = Math.abs(best - candidateLength);
    return d < bestD || (d === bestD && length < best) ? length : best;
  });
}

/**
 * Sentence BLEU-4 (Papineni et al. 2002) as newer promptfoo computes it: clipped n-gram precision
 * against the best reference per order, uniform weights, zero precisions smoothed to 1e-7, and the
 * brevity penalty exp(1 − r/c) against the closest reference length r. Orders longer than the
 * candidate have no n-grams at all; they are left out and the weights renormalised, so a perfect
 * three-word answer scores 1 instead of (1e-7)^¼. A blank candidate scores 0.
 */
export function bleuScore(candidate: string, references: readonly string[]): number {
  const candidateWords = words(candidate);
  if (candidateWords.length === 0) return 0;
  const referenceWords = references.map(words);
  let logSum = 0;
  let orders = 0;
  for (let n = 1; n <= MAX_N; n++) {
    const grams = nGrams(candidateWords, n);
    if (grams.length === 0) break;
    const counts = countGrams(grams);
    let best = 0;
    for (const ref of referenceWords)
      best = Math.max(best, clippedMatches(counts, countGrams(nGrams(ref, n))));
    const precision = best / grams.length;
    logSum += Math.log(precision === 0 ? ZERO_PRECISION : precision);
    orders++;
  }
  const c = candidateWords.length;
  const r = closestLength(
    c,
    referenceWords.map((w) => w.length),
  );
  const brevity = c > r ? 1 : Math.exp(1 - r / c);
  return brevity * Math.exp(logSum / orders);
}

/** GLEU tokens: lower-cased whitespace words with trailing periods removed ("mat." matches "mat"). */
function gleuWords(text: string): string[] {
  return words(text).map((word) => word.replace(/\.+$/, ''));
}

/**
 * Sentence GLEU (Wu et al. 2016) as promptfoo computes it: over all 1- to 4-grams, clipped matches
 * divided by the candidate's n-gram count (precision) and by the reference's (recall); the score is
 * min(precision, recall) for the best reference. Identical token lists score 1; a blank candidate 0.
 */
export function gleuScore(candidate: string, references: readonly string[]): number {
  const candidateWords = gleuWords(candidate);
  if (candidateWords.length === 0) return 0;
  let best = 0;
  for (const reference of references) {
    const referenceWords = gleuWords(reference);
    if (
      referenceWords.length === candidateWords.length &&
      referenceWords.every((word, i) => word === candidateWords[i])
    ) {
      return 1;
    }
    let matches = 0;
    let candidateTotal = 0;
    let referenceTotal = 0;
    for (let n = 1; n <= MAX_N; n++) {
      const candidateGrams = nGrams(candidateWords, n);
      const referenceGrams = nGrams(referenceWords, n);
      matches += clippedMatches(countGrams(candidateGrams), countGrams(referenceGrams));
      candidateTotal += candidateGrams.length;
      referenceTotal += referenceGrams.length;
    }
    if (candidateTotal > 0 && referenceTotal > 0) {
      best = Math.max(best, Math.min(matches / candidateTotal, matches / referenceTotal));
    }
  }
  return best;
}

function overlapScorer(
  type: 'bleu' | 'gleu',
  label: string,
  metric: (candidate: string, references: readonly string[]) => number,
): Scorer {
  return {
    type,
    description: `${label} against the reference(s) is at least the threshold (default ${DEFAULT_THRESHOLD})`,
    validate: (spec) => referencesProblem(type, spec),
    score(input: ScoreInput): ScoreResult {
      const negate = input.spec.negate === true;
      const references = referenceTexts(type, input.value);
      const threshold = thresholdOr(input.spec, DEFAULT_THRESHOLD);
      const score = metric(input.output, references);
      const pass = score >= threshold !== negate;
      return {
        pass,
        score: negate ? 1 - score : score,
        reason: pass
          ? 'Assertion passed'
          : `${type.toUpperCase()} score ${score.toFixed(4)} is ${negate ? 'greater' : 'less'} than threshold ${threshold}`,
      };
    },
  };
}

/** `bleu` and `gleu`: value is a reference string or a list of references. */
export const overlapScorers: Scorer[] = [
  overlapScorer('bleu', 'BLEU-4', bleuScore),
  overlapScorer('gleu', 'GLEU', gleuScore),
];
