// `embedding-similarity`: cosine similarity between the output and reference texts, with the
// grader's embeddings. Without embeddings it skips (and says why) rather than guessing.
import { type Scorer, ScorerInputError } from '../types.js';
import { cosine } from './vectors.js';

function references(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    if (typeof item !== 'string') throw new ScorerInputError(`reference ${i + 1} must be a string`);
    return item;
  });
}

export const embeddingSimilarityScorer: Scorer = {
  type: 'embedding-similarity',
  description:
    "Cosine similarity of the output's embedding to the closest reference (the value: a string or a list) is at least the threshold; skipped without embeddings",
  usesGrader: true,
  validate(spec) {
    if (typeof spec.threshold !== 'number' || spec.threshold < -1 || spec.threshold > 1)
      return 'embedding-similarity needs a threshold from -1 to 1';
    return undefined;
  },
  async score(input) {
    const refs = references(input.value);
    const threshold = input.spec.threshold;
    const skip = (reason: string) => ({ pass: false, score: 0, reason, skip: true });
    if (refs.length === 0) return skip('no reference text to compare the output with');
    if (typeof threshold !== 'number' || Number.isNaN(threshold))
      return skip('no similarity threshold given');
    const grader = input.grader;
    if (!grader) return skip('no embeddings: no grader model is configured');
    if (!grader.embed) return skip(`no embeddings: ${grader.id} offers none`);
    const [out, ...refVectors] = await grader.embed([input.output, ...refs]);
    let best = Number.NEGATIVE_INFINITY;
    let bestIndex = 0;
    refVectors.forEach((v, i) => {
      const sim = cosine(out, v, 'error');
      if (sim > best) {
        best = sim;
        bestIndex = i;
      }
    });
    const pass = best >= threshold !== (input.spec.negate === true);
    return {
      pass,
      score: Math.max(0, Math.min(1, best)),
      reason: `Similarity ${best.toFixed(3)} to ${JSON.stringify(refs[bestIndex])} ${best >= threshold ? '≥' : '<'} ${threshold}`,
      // An infinite threshold (a Python suite's "inf") has no JSON form: left out, not written as null.
      details: {
        similarity: best,
        ...(Number.isFinite(threshold) ? { threshold } : {}),
        closest: refs[bestIndex],
      },
    };
  },
};
