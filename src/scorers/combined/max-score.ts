// promptfoo's `max-score` (spec §5.5): among the outputs of one test, the one whose other
// assertions scored highest wins; the others fail with score 0.
import { isRecord } from '../../core/records.js';
import type { Verdict } from '../../core/types.js';
import { getScorer } from '../registry.js';
import { type CompareInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { judgedAlone } from './alone.js';

interface MaxScoreOptions {
  method: 'average' | 'sum';
  weights: Record<string, number>;
  threshold?: number;
}

/** Why a max-score value is unusable, or undefined. */
function valueProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value))
    return 'max-score takes an optional mapping {method, weights, threshold} as its value';
  if (value.method !== undefined && value.method !== 'average' && value.method !== 'sum')
    return `max-score: method must be "average" or "sum", got ${JSON.stringify(value.method)}`;
  if (value.weights !== undefined) {
    if (
      !isRecord(value.weights) ||
      !Object.values(value.weights).every((w) => typeof w === 'number' && Number.isFinite(w))
    )
      return 'max-score: weights must map assertion types to numbers';
  }
  if (
    value.threshold !== undefined &&
    (typeof value.threshold !== 'number' || !Number.isFinite(value.threshold))
  )
    return 'max-score: threshold must be a number';
  return undefined;
}

function options(value: unknown): MaxScoreOptions {
  const v = isRecord(value) ? value : {};
  return {
    method: v.method === 'sum' ? 'sum' : 'average',
    weights: isRecord(v.weights) ? (v.weights as Record<string, number>) : {},
    threshold: typeof v.threshold === 'number' ? v.threshold : undefined,
  };
}

/** A row's verdicts with the members of groups, as promptfoo flattens its component results. */
function flatten(verdicts: Verdict[]): Verdict[] {
  return verdicts.flatMap((v) => (v.children ? flatten(v.children) : [v]));
}

/** Whether a verdict counts towards max-score: not a comparison, not skipped, not metric-only (weight 0 with a metric). */
function counts(v: Verdict): boolean {
  const base = v.type.startsWith('not-') ? v.type.slice(4) : v.type;
  if (getScorer(base)?.compare) return false;
  if (v.skipped) return false;
  return !(v.weight === 0 && v.metric !== undefined);
}

async function maxScore(input: CompareInput): Promise<ScoreResult[]> {
  const problem = valueProblem(input.value);
  if (problem) throw new ScorerInputError(problem);
  if (input.rows.length < 2) {
    throw new ScorerInputError(
      `max-score compares the outputs of a test's prompts and providers and needs at least two; this test has ${input.rows.length}`,
    );
  }
  const o = options(input.value);
  const scored = input.rows.map((row) => {
    if (row.errored) return undefined;
    const relevant = flatten(row.verdicts).filter(counts);
    if (relevant.length === 0) {
      throw new ScorerInputError(
        'max-score requires at least one other assertion (besides max-score or select-best) to aggregate scores from',
      );
    }
    let total = 0;
    let totalWeight = 0;
    for (const v of relevant) {
      const w = o.weights[v.type] ?? 1;
      total += v.score * w;
      totalWeight += w;
    }
    const score = o.method === 'sum' ? total : totalWeight > 0 ? total / totalWeight : 0;
    return { score, count: relevant.length, totalWeight };
  });
  let best = Number.NEGATIVE_INFINITY;
  let winner = -1;
  scored.forEach((s, i) => {
    // Ties go to the first output in plan order.
    if (s && s.score > best) {
      best = s.score;
      winner = i;
    }
  });
  const meets = o.threshold === undefined || best >= o.threshold;
  return scored.map((s, i) => {
    if (!s)
      return {
        pass: false,
        score: 0,
        reason: 'Not eligible for max-score: the provider did not produce an output',
      };
    const won = i === winner && meets;
    const details = { maxScore: s.score, assertionCount: s.count, totalWeight: s.totalWeight };
    const reason = won
      ? `Selected as highest scoring output (score: ${s.score.toFixed(3)})`
      : s.score === best && !meets
        ? `Not selected - score ${s.score.toFixed(3)} below threshold ${o.threshold}`
        : `Not selected (score: ${s.score.toFixed(3)}, max: ${best.toFixed(3)})`;
    return { pass: won, score: won ? 1 : 0, reason, details };
  });
}

/** `max-score`: the output whose other assertions scored highest wins. */
export const maxScoreScorer: Scorer = {
  type: 'max-score',
  description:
    'the output (among all prompts and providers of a test) whose other assertions scored highest passes',
  validate(spec) {
    if (spec.negate) return 'max-score cannot be negated';
    return valueProblem(spec.value);
  },
  compare: maxScore,
  score: judgedAlone(maxScore),
};
