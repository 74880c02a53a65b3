// METEOR as promptfoo 0.123.1 computes it (`assertions/meteor.ts`): words aligned in three stages
// (exact, Porter stem, WordNet synonym), then a harmonic mean of precision and recall discounted for
// fragmentation; the best score over the references. The stemmer and WordNet come from the
// `natural` package, as in promptfoo, where it is an optional dependency. It is not one of assay's
// dependencies (with WordNet's data it is ~48 MB, and its package pulls in database clients), so
// a meteor assertion without it installed is an error naming the package (promptfoo's too).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { referencesProblem, referenceTexts, thresholdOr } from './shared.js';

const DEFAULTS = { alpha: 0.9, beta: 3, gamma: 0.5, threshold: 0.5 };

interface Stemmer {
  stem(word: string): string;
}
interface Synset {
  synonyms: string[];
}
interface WordNet {
  lookup(word: string, done: (synsets: Synset[]) => void): void;
}
interface Natural {
  stemmer: Stemmer;
  wordnet: () => WordNet;
}

let natural: Natural | undefined;

/**
 * The stemmer and WordNet of `natural`, looked up from the suite's folder, the working folder and
 * assay's own install. Only those two modules are loaded: natural's index also loads dotenv, which
 * reads `.env` into the environment and prints to stdout.
 */
function loadNatural(basePath: string | undefined): Natural {
  if (natural) return natural;
  const from = [basePath, process.cwd()].filter((p): p is string => p !== undefined);
  for (const dir of [...from.map((d) => join(d, 'noop.js')), import.meta.url]) {
    try {
      const req = createRequire(dir);
      const stemmer = req('natural/lib/natural/stemmers/porter_stemmer') as Stemmer;
      const WordNetClass = req('natural/lib/natural/wordnet/wordnet') as new () => WordNet;
      natural = { stemmer, wordnet: () => new WordNetClass() };
      return natural;
    } catch {
      // Not installed there; try the next place.
    }
  }
  throw new ScorerInputError(
    'the "natural" package is required for meteor assertions (as in promptfoo): npm install natural@^8.1.0',
  );
}

type Indexed = [index: number, word: string];
type Pair = [candidate: number, reference: number];

/**
 * Pairs equal words, scanning both lists from the end and taking the first (highest-index)
 * reference word equal to each candidate word; returns the pairs and what is left unpaired.
 */
function pairEqual(candidate: Indexed[], reference: Indexed[]): [Pair[], Indexed[], Indexed[]] {
  const left = [...candidate];
  const right = [...reference];
  const pairs: Pair[] = [];
  for (let i = left.length - 1; i >= 0; i--) {
    const j = right.findLastIndex((r) => r[1] === left[i][1]);
    if (j === -1) continue;
    pairs.push([left[i][0], right[j][0]]);
    left.splice(i, 1);
    right.splice(j, 1);
  }
  return [pairs, left, right];
}

/** Candidate words paired with a reference word among their WordNet synonyms (multi-word lemmas left out). */
async function pairSynonyms(candidate: Indexed[], reference: Indexed[], wordnet: WordNet): Promise<Pair[]> {
  const right = [...reference];
  const pairs: Pair[] = [];
  for (let i = candidate.length - 1; i >= 0; i--) {
    const word = candidate[i][1];
    const synsets = await new Promise<Synset[]>((resolve) => wordnet.lookup(word, resolve));
    const synonyms = new Set([word, ...synsets.flatMap((s) => s.synonyms.filter((w) => !w.includes('_')))]);
    const j = right.findLastIndex((r) => synonyms.has(r[1]));
    if (j === -1) continue;
    pairs.push([candidate[i][0], right[j][0]]);
    right.splice(j, 1);
  }
  return pairs;
}

/** Runs of pairs adjacent in both texts. */
function chunks(pairs: Pair[]): number {
  let n = pairs.length > 0 ? 1 : 0;
  for (let i = 1; i < pairs.length; i++) {
    if (pairs[i][0] !== pairs[i - 1][0] + 1 || pairs[i][1] !== pairs[i - 1][1] + 1) n++;
  }
  return n;
}

/** promptfoo's words: split on whitespace, trailing full stops dropped, lower-cased. */
function words(text: string): Indexed[] {
  return text.split(/\s+/).map((w, i) => [i, w.replace(/\.+$/, '').toLowerCase()]);
}

async function singleScore(
  reference: string,
  candidate: string,
  params: { alpha: number; beta: number; gamma: number },
  lib: Natural,
): Promise<number> {
  const cand = words(candidate);
  const ref = words(reference);
  const [exact, candLeft, refLeft] = pairEqual(cand, ref);
  const stem = (list: Indexed[]): Indexed[] => list.map(([i, w]) => [i, lib.stemmer.stem(w)]);
  // The synonym stage looks up what the stem stage left, which are stems, not the words.
  const [stemmed, candStems, refStems] = pairEqual(stem(candLeft), stem(refLeft));
  const synonyms = await pairSynonyms(candStems, refStems, lib.wordnet());
  const pairs = [...exact, ...stemmed, ...synonyms].sort((a, b) => a[0] - b[0]);
  const m = pairs.length;
  if (m === 0) return 0;
  const precision = m / cand.length;
  const recall = m / ref.length;
  const denominator = params.alpha * precision + (1 - params.alpha) * recall;
  if (denominator === 0) return 0;
  const fmean = (precision * recall) / denominator;
  const fragmentation = chunks(pairs) / m;
  return (1 - params.gamma * fragmentation ** params.beta) * fmean;
}

/** The best METEOR score of `candidate` over the references. */
export async function meteorScore(
  candidate: string,
  references: readonly string[],
  params: Partial<typeof DEFAULTS> = {},
  basePath?: string,
): Promise<number> {
  const lib = loadNatural(basePath);
  const p = { ...DEFAULTS, ...params };
  const scores = await Promise.all(references.map((r) => singleScore(r, candidate, p, lib)));
  return Math.max(...scores);
}

function numberOption(input: ScoreInput, name: 'alpha' | 'beta' | 'gamma'): number {
  const v = input.spec.options?.[name];
  if (v === undefined || v === null) return DEFAULTS[name];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ScorerInputError(`"meteor" option \`${name}\` must be a number, got ${JSON.stringify(v)}`);
  return v;
}

export const meteorScorer: Scorer = {
  type: 'meteor',
  description: `METEOR (exact, stem and WordNet synonym matches) against the reference(s) is at least the threshold (default ${DEFAULTS.threshold}); needs the "natural" package`,
  // An empty reference scores 0, as promptfoo's code scores it (no words to match).
  validate: (spec) => referencesProblem('meteor', spec, true),
  async score(input: ScoreInput): Promise<ScoreResult> {
    const negate = input.spec.negate === true;
    const references = referenceTexts('meteor', input.value, true);
    // promptfoo refuses to score an empty output ("Invalid inputs"): an error, not a verdict.
    if (input.output === '') throw new ScorerInputError('"meteor" cannot score an empty output');
    const threshold = thresholdOr(input.spec, DEFAULTS.threshold);
    const params = {
      alpha: numberOption(input, 'alpha'),
      beta: numberOption(input, 'beta'),
      gamma: numberOption(input, 'gamma'),
    };
    const score = await meteorScore(input.output, references, params, input.basePath);
    const pass = negate ? score < threshold : score >= threshold;
    return {
      pass,
      score: negate ? 1 - score : score,
      reason: pass
        ? 'METEOR assertion passed'
        : `METEOR score ${score.toFixed(4)} did not meet threshold ${threshold}`,
    };
  },
};
