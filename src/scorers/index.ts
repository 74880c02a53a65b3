// Registers assay's built-in scorers. Import this module before validating or scoring a suite.
import './deterministic/index.js';
import './code/index.js';
import './text/index.js';
import './graded/index.js';
import './group/index.js';
import './sql/index.js';
import './general/index.js';
import './python/index.js';

export { getScorer, registerScorer, resolveAssertionType, scorerTypes } from './registry.js';
export type { ScoreInput, ScoreResult, Scorer } from './types.js';
export { ScorerInputError } from './types.js';
