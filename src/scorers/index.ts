// Registers assay's built-in scorers. Import this module before validating or scoring a suite.
// Grouped by what a scorer reads: the output as text, the output parsed as a structure, the
// provider's response, a grader model's judgement, user code, or other verdicts and rows.
import './text/index.js';
import './structured/index.js';
import './response/index.js';
import './graded/index.js';
import './code/index.js';
import './combined/index.js';

export { getScorer, registerScorer, resolveAssertionType, scorerTypes } from './registry.js';
export type { ScoreInput, ScoreResult, Scorer } from './types.js';
export { ScorerInputError } from './types.js';
