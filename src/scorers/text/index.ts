// Registers the scorers that read the output as text: promptfoo's string checks (equals,
// contains…, regex) and text metrics (levenshtein, rouge, bleu/gleu/meteor, word count, refusal),
// and the parameterised checks other formats express theirs with (keyword recall, length bounds,
// Markdown elements, option letters, and Python-semantics equality and containment).
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { overlapScorers } from './bleu.js';
import { containsScorers } from './contains.js';
import { equalsScorer } from './equals.js';
import { keywordRecallScorer } from './keyword-recall.js';
import { lengthScorer } from './length.js';
import { levenshteinScorer } from './levenshtein.js';
import { markdownElementsScorer } from './markdown.js';
import { meteorScorer } from './meteor.js';
import { multipleChoiceScorer } from './multiple-choice.js';
import { pyContainsAnyScorer, pyContainsScorer, pyEqualsScorer } from './python-text.js';
import { refusalScorer } from './refusal.js';
import { regexScorer } from './regex.js';
import { rougeNScorer } from './rouge.js';
import { wordCountScorer } from './word-count.js';

/** The text scorers, in registration order. */
export const textScorers: readonly Scorer[] = [
  equalsScorer,
  ...containsScorers,
  regexScorer,
  levenshteinScorer,
  rougeNScorer,
  ...overlapScorers,
  meteorScorer,
  wordCountScorer,
  refusalScorer,
  keywordRecallScorer,
  lengthScorer,
  markdownElementsScorer,
  multipleChoiceScorer,
  pyEqualsScorer,
  pyContainsScorer,
  pyContainsAnyScorer,
];

for (const scorer of textScorers) registerScorer(scorer);

export { bleuScore, gleuScore } from './bleu.js';
export { levenshteinDistance } from './levenshtein.js';
export { rougeN, treebankTokens } from './rouge.js';
