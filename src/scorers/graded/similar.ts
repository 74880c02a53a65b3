// `similar` (and `similar:cosine`, `similar:dot`, `similar:euclidean`): embeddings of the expected
// value and the output compared by cosine (default), dot product or Euclidean distance.
import { GraderError, type ScoreInput, type ScoreResult, type Scorer } from '../types.js';
import { requireGrader, thresholdOf } from './rubric.js';
import { cosine, sameLength } from './vectors.js';

type Metric = 'cosine' | 'dot' | 'euclidean';
const DEFAULT_THRESHOLD = 0.75;

function measure(a: number[], b: number[], metric: Metric): number {
  sameLength(a, b);
  if (metric === 'cosine') return cosine(a, b);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += metric === 'dot' ? a[i] * b[i] : (a[i] - b[i]) ** 2;
  return metric === 'dot' ? sum : Math.sqrt(sum);
}

/** promptfoo's verdict for one expected value: similarities pass at ≥ threshold, distances at ≤. */
function verdict(value: number, threshold: number, negate: boolean, metric: Metric): ScoreResult {
  if (metric === 'euclidean') {
    const pass = negate ? value >= threshold - Number.EPSILON : value <= threshold + Number.EPSILON;
    const normalised = 1 / (1 + value);
    const near = `Distance ${value.toFixed(2)} is less than or equal to threshold ${threshold}`;
    const far = `Distance ${value.toFixed(2)} is greater than threshold ${threshold}`;
    return { pass, score: negate ? 1 - normalised : normalised, reason: pass === negate ? far : near };
  }
  const pass = negate ? value <= threshold + Number.EPSILON : value >= threshold - Number.EPSILON;
  const above = `Similarity ${value.toFixed(2)} is greater than or equal to threshold ${threshold}`;
  const below = `Similarity ${value.toFixed(2)} is less than threshold ${threshold}`;
  return { pass, score: negate ? 1 - value : value, reason: pass === negate ? below : above };
}

function similarScorer(type: string, metric: Metric): Scorer {
  return {
    type,
    description: `embedding ${metric === 'dot' ? 'dot product' : metric === 'euclidean' ? 'distance' : 'cosine similarity'} between the output and the expected text`,
    graded: true,
    needsEmbeddings: true,
    validate(spec) {
      const v = spec.value;
      const ok =
        typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'));
      return ok
        ? undefined
        : `"${type}" assertion type must have a string value or a non-empty list of strings`;
    },
    async score(input: ScoreInput): Promise<ScoreResult> {
      const grader = requireGrader(input, type);
      if (!grader.embed)
        throw new GraderError(
          `${type} needs embeddings, but grader ${grader.embeddingId ?? grader.id} offers none: give an embedding model (e.g. openai:embedding:text-embedding-3-small) as the grader, or a provider map {text: …, embedding: …}`,
        );
      const expected = typeof input.value === 'string' ? [input.value] : (input.value as string[]);
      const threshold = thresholdOf(input, DEFAULT_THRESHOLD);
      const negate = input.spec.negate === true;
      const vectors = await grader.embed([input.output, ...expected]);
      const results = expected.map((_, i) =>
        verdict(measure(vectors[i + 1], vectors[0], metric), threshold, negate, metric),
      );
      if (results.length === 1) return results[0];
      // promptfoo 0.123.1 with a list: the first value that passes decides; when none does, the
      // best score is reported. Under `not-`, the first value that fails decides; when every value
      // passes, the closest one (lowest score) is reported.
      if (negate) {
        const failing = results.find((r) => !r.pass);
        return failing ?? results.reduce((a, b) => (b.score < a.score ? b : a));
      }
      const passing = results.find((r) => r.pass);
      if (passing) return passing;
      const best = Math.max(...results.map((r) => r.score));
      return { pass: false, score: best, reason: 'None of the provided values met the similarity threshold' };
    },
  };
}

export const similarScorers: Scorer[] = [
  similarScorer('similar', 'cosine'),
  similarScorer('similar:cosine', 'cosine'),
  similarScorer('similar:dot', 'dot'),
  similarScorer('similar:euclidean', 'euclidean'),
];
