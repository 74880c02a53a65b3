// promptfoo's `assert-set` (spec §5.6): a group of assertions judged as one. The engine scores the
// children with the case rules; the set's verdict is their combination under the set's threshold.
import { combineVerdicts } from '../../core/aggregate.js';
import type { ScoreResult, Scorer } from '../types.js';

/** `assert-set`: passes iff every child passes, or, with a threshold, iff their weighted mean reaches it. */
export const assertSetScorer: Scorer = {
  type: 'assert-set',
  description:
    'a group of assertions with its own threshold, weight and metric; its score is their weighted mean',
  group: true,
  validate(spec) {
    if (!Array.isArray(spec.children)) return 'assert-set needs an `assert` list of assertions';
    if (spec.negate) return 'assert-set cannot be negated';
    return undefined;
  },
  score({ children = [], spec }): ScoreResult {
    const c = combineVerdicts(children, spec.threshold);
    const result: ScoreResult = { pass: c.pass, score: c.score, reason: c.reason };
    if (c.skip) result.skip = true;
    if (c.namedScores) {
      result.namedScores = c.namedScores;
      result.namedScoreWeights = c.namedScoreWeights;
    }
    return result;
  },
};
