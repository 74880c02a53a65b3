// Registers promptfoo's text-metric and response assertions. Importing this module is enough.
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { overlapScorers } from './bleu.js';
import { finishReasonScorer } from './finish-reason.js';
import { htmlScorers } from './html.js';
import { levenshteinScorer } from './levenshtein.js';
import { refusalScorer } from './refusal.js';
import { responseScorers } from './response.js';
import { rougeNScorer } from './rouge.js';
import { toolsCallScorer } from './tools-call.js';
import { wordCountScorer } from './word-count.js';
import { xmlScorers } from './xml.js';

/** The text-metric scorers, in registration order. */
export const textScorers: readonly Scorer[] = [
  levenshteinScorer,
  rougeNScorer,
  ...overlapScorers,
  wordCountScorer,
  finishReasonScorer,
  ...responseScorers,
  ...xmlScorers,
  ...htmlScorers,
  toolsCallScorer,
  refusalScorer,
];

for (const scorer of textScorers) registerScorer(scorer);

export { bleuScore, gleuScore } from './bleu.js';
export { levenshteinDistance } from './levenshtein.js';
export { rougeN, treebankTokens } from './rouge.js';
