// Registers general-purpose scorers that foreign formats express their checks with (keyword
// recall, length bounds, Markdown elements, composite means, option letters). Importing is enough.
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { keywordRecallScorer } from './keyword-recall.js';
import { lengthScorer } from './length.js';
import { markdownElementsScorer } from './markdown.js';
import { meanScorer } from './mean.js';
import { multipleChoiceScorer } from './multiple-choice.js';
import { unscorableScorer } from './unscorable.js';

/** The general scorers, in registration order. */
export const generalScorers: readonly Scorer[] = [
  keywordRecallScorer,
  lengthScorer,
  markdownElementsScorer,
  meanScorer,
  multipleChoiceScorer,
  unscorableScorer,
];

for (const scorer of generalScorers) registerScorer(scorer);
