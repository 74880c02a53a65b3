import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { countGrams, nGrams, stringValue, stringValueProblem, thresholdOr } from './shared.js';

/** promptfoo's default rouge-n threshold. */
const DEFAULT_THRESHOLD = 0.75;

/** A word character on either side of a contraction (js-rouge 3.2's boundary). */
const WORD = '[\\p{ID_Continue}\\u200c\\u200d]';
/** Uncommon contractions the Penn Treebank splits in two (js-rouge 3.2 splits every one). */
const CONTRACTIONS: readonly RegExp[] = [
  '(can)(not)',
  "(d)('ye)",
  '(gim)(me)',
  '(gon)(na)',
  '(got)(ta)',
  '(lem)(me)',
  "(more)('n)",
  '(wan)(na)(?= )',
  "('t)(is)",
  "('t)(was)",
].map((body) => new RegExp(`(?<!${WORD})${body}(?!${WORD})`, 'giu'));

/** The code point at `i` as a string ('' past the end). */
function codePointAt(text: string, i: number): string {
  const c = text.codePointAt(i);
  return c === undefined ? '' : String.fromCodePoint(c);
}

/**
 * Penn Treebank word tokens as js-rouge 3.2.3 (the library promptfoo 0.123.1's rouge-n calls)
 * splits a text: whitespace runs become single spaces; double quotes become `` or '' by position;
 * `...`, commas and colons (not before a digit, so 1,000 and 10:30 stay whole), `;@#$%&`, `?!`,
 * brackets and `--` become tokens; a final period is split off (not in "U.S."); clitics ('s, n't,
 * 'll…) and a few contractions are split. (js-rouge also treats a quote after a modifier letter
 * specially; that rare case is not reproduced.)
 */
export function treebankTokens(input: string): string[] {
  const text = input.replace(/[\s\u0085]+/g, ' ').trim();
  if (text === '') return [];
  let opened = false;
  let s = text.replace(/``|''|"/g, (quote: string, i: number) => {
    const startsQuote =
      (i + quote.length < text.length || i === 0 || /[\s\p{Ps}<]/u.test(text[i - 1])) &&
      !opened &&
      (i === 0 || /[\s\p{P}<]/u.test(text[i - 1]) || text.slice(i - 2, i) === '``') &&
      !/[.!?]/.test(text[i - 1] ?? '') &&
      (quote === '"' ||
        (i > 0 &&
          /^[\p{L}\p{N}\p{Sc}\p{Ps}]$/u.test(codePointAt(text, i + 2)) &&
          text.slice(i + 2).match(/``|''|"/)?.[0] === "''"));
    opened = quote === '``' || startsQuote;
    return opened ? ' `` ' : " '' ";
  });
  s = s
    .replace(/\.{3}/g, ' ... ')
    .replace(/[:,](?!\p{Nd})/gu, ' $& ')
    .replace(/[;@#$%&]/g, ' $& ')
    .replace(/([^.])(?<!\b[A-Za-z]\.[A-Za-z])(\.)([\])}>'\s]*)$/g, '$1 $2$3 ')
    .replace(/[?!]/g, ' $& ')
    .replace(/[\][(){}<>]/g, ' $& ')
    .replace(/--/g, ' -- ');
  s = ` ${s} `
    .replace(/([^'])' /g, "$1 ' ")
    .replace(/'([sSmMdD]) /g, " '$1 ")
    .replace(/('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g, ' $1 ');
  for (const contraction of CONTRACTIONS) s = s.replace(contraction, ' $1 $2 ');
  return s.replace(/ {2,}/g, ' ').replace(/^ | $/g, '').split(' ');
}

/** js-rouge's F-measure with β = 1, computed as it computes it (the same floating-point result). */
function fMeasure(p: number, r: number): number {
  if (p === r) return p;
  if (p === 0 || r === 0) return 0;
  return p > r ? Math.min(p, r * (2 / (1 + r / p))) : Math.min(r, p * (2 / (1 + p / r)));
}

/**
 * ROUGE-N as promptfoo 0.123.1 computes it: the F-score of clipped n-gram overlap (each n-gram
 * counts at most as often as in the reference, Lin 2004) over js-rouge's tokens, on lower-cased
 * texts. Either text with fewer than n tokens scores 0.
 */
export function rougeN(candidate: string, reference: string, n = 1): number {
  const candidateTokens = treebankTokens(candidate.toLowerCase());
  const referenceTokens = treebankTokens(reference.toLowerCase());
  if (candidateTokens.length < n || referenceTokens.length < n) return 0;
  const candidateGrams = nGrams(candidateTokens, n);
  const referenceGrams = nGrams(referenceTokens, n);
  const inReference = countGrams(referenceGrams);
  let overlap = 0;
  for (const [gram, count] of countGrams(candidateGrams))
    overlap += Math.min(count, inReference.get(gram) ?? 0);
  if (overlap === 0) return 0;
  return fMeasure(overlap / candidateGrams.length, overlap / referenceGrams.length);
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

/** `rouge-n`: unigram F-score against the value ≥ threshold (default 0.75). */
export const rougeNScorer: Scorer = {
  type: 'rouge-n',
  description:
    'ROUGE-N (unigram F-score, as promptfoo) against the value is at least the threshold (default 0.75)',
  validate: (spec) => stringValueProblem('rouge-n', spec, true),
  score: scoreRougeN,
};
