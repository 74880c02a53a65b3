import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';

/**
 * `unscorable`: stands for a check the suite asks for but cannot be scored (e.g. a test with no
 * expected answer). It always throws, with its value as the reason, so the job is an `error` that
 * says why, while the model is still asked and its answer recorded.
 */
export const unscorableScorer: Scorer = {
  type: 'unscorable',
  description: 'A check that cannot be scored; the job is an error with the given reason',
  score(input) {
    throw new ScorerInputError(typeof input.value === 'string' ? input.value : 'this test cannot be scored');
  },
};
