// Registers the scorers that judge groups: of assertions (assert-set) and of outputs (select-best, max-score).
import { registerScorer } from '../registry.js';
import { assertSetScorer } from './assert-set.js';
import { maxScoreScorer } from './max-score.js';
import { selectBestScorer } from './select-best.js';

registerScorer(assertSetScorer);
registerScorer(selectBestScorer);
registerScorer(maxScoreScorer);
