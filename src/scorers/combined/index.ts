// Registers the scorers that combine other judgements: of assertions (assert-set, a weighted mean
// of checks), of rows (select-best, max-score), and the stand-in for a check that cannot be scored.
import { registerScorer } from '../registry.js';
import { assertSetScorer } from './assert-set.js';
import { maxScoreScorer } from './max-score.js';
import { meanScorer } from './mean.js';
import { selectBestScorer } from './select-best.js';
import { unscorableScorer } from './unscorable.js';

for (const scorer of [assertSetScorer, selectBestScorer, maxScoreScorer, meanScorer, unscorableScorer])
  registerScorer(scorer);
