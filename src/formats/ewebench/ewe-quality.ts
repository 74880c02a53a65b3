import { pyLen, pyWordPattern } from '../../core/python/text.js';
import { registerScorer } from '../../scorers/registry.js';
import type { ScoreResult, Scorer } from '../../scorers/types.js';

/** Letters only Ewe (of the three languages in play) writes; lower-case only, as the tool checks. */
export const EWE_LETTERS = ['ɖ', 'ɛ', 'ɔ', 'ƒ', 'ŋ', 'ɣ'];
/** Common Ewe words, each worth 0.05 when found as a substring (up to 0.4). */
export const EWE_COMMON_WORDS = [
  'nye',
  'wò',
  'mí',
  'ɖe',
  'le',
  'kple',
  'dzi',
  'ƒe',
  'gbɔ',
  'aɖe',
  'ame',
  'esia',
  'eya',
  'mele',
  'woɖo',
  'afi',
  'nyo',
];
/** French words whose presence (more than 5 as whole words) costs 0.2. */
export const FRENCH_WORDS = [
  'le',
  'la',
  'les',
  'de',
  'du',
  'des',
  'un',
  'une',
  'est',
  'sont',
  'pour',
  'dans',
  'avec',
  'cette',
  'voici',
];
/** Substrings the `format` check's `contains_ewe` looks for in the lower-cased output. */
export const EWE_MARKERS = ['ɖe', 'nye', 'wò', 'mí', 'ɛ', 'ɔ', 'ƒe', 'kple', 'dzi', 'le'];

const FRENCH_PATTERNS = FRENCH_WORDS.map((w) => new RegExp(pyWordPattern(w), 'u'));

/**
 * ÈwéBench's heuristic Ewe quality score, step for step: the additions run in the tool's order so
 * the floating-point result is identical (e.g. 0.9500000000000001).
 */
export function eweQuality(response: string): { score: number; parts: Record<string, number> } {
  if (response === '' || response.startsWith('[ERROR]')) return { score: 0, parts: {} };
  let score = 0;
  const lower = response.toLowerCase();
  const hasLetters = EWE_LETTERS.some((c) => response.includes(c));
  if (hasLetters) score += 0.3;
  const wordsFound = EWE_COMMON_WORDS.filter((w) => lower.includes(w)).length;
  score += Math.min(0.4, wordsFound * 0.05);
  const frenchCount = FRENCH_PATTERNS.filter((p) => p.test(lower)).length;
  if (frenchCount > 5) score -= 0.2;
  const hasPeriod = response.includes('.');
  if (hasPeriod) score += 0.2;
  const long = pyLen(response) > 20;
  if (long) score += 0.1;
  return {
    score: Math.max(0, Math.min(1, score)),
    parts: {
      eweLetters: hasLetters ? 1 : 0,
      eweWords: wordsFound,
      frenchWords: frenchCount,
      period: hasPeriod ? 1 : 0,
      long: long ? 1 : 0,
    },
  };
}

/** `ewebench:ewe-quality`: the heuristic score; passes at `threshold` (default 0.7, the tool's pass mark). */
export const eweQualityScorer: Scorer = {
  type: 'ewebench:ewe-quality',
  description:
    "ÈwéBench's heuristic Ewe quality score (Ewe letters and words, French words, sentences, length)",
  score(input): ScoreResult {
    const { score, parts } = eweQuality(input.output);
    const pass = score >= (input.spec.threshold ?? 0.7) !== (input.spec.negate === true);
    const reason =
      input.output === '' || input.output.startsWith('[ERROR]')
        ? 'Empty or error output scores 0'
        : `Ewe letters ${parts.eweLetters ? 'yes' : 'no'}, ${parts.eweWords} common Ewe words, ${parts.frenchWords} French words, ${parts.period ? 'several sentences' : 'one sentence'}, ${parts.long ? 'over' : 'up to'} 20 characters`;
    return { pass, score, reason, details: parts };
  },
};

registerScorer(eweQualityScorer);
