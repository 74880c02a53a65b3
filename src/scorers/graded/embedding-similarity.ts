// `embedding-similarity`: cosine similarity between the output and reference texts, with the
// grader's embeddings. Without embeddings it skips (and says why) rather than guessing.
import { GraderError, type Scorer, ScorerInputError } from '../types.js';

/** Cosine similarity of two vectors of the same length. */
export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length)
    throw new GraderError(`embeddings differ in length (${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0)
    throw new GraderError('an embedding is the zero vector; no similarity can be computed');
  return dot / Math.sqrt(na * nb);
}

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
      const sim = cosine(out, v);
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
