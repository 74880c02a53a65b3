// Registers the scorers that ask a grader model: promptfoo's llm-rubric family, similarity and RAG
// checks, and the general yes/no judge and embedding similarity other formats parameterise.
import { registerScorer } from '../registry.js';
import { answerRelevanceScorer } from './answer-relevance.js';
import { closedQaScorer } from './closedqa.js';
import { contextFaithfulnessScorer, contextRecallScorer, contextRelevanceScorer } from './context.js';
import { embeddingSimilarityScorer } from './embedding-similarity.js';
import { factualityScorer, modelGradedFactualityScorer } from './factuality.js';
import { gEvalScorer } from './g-eval.js';
import { judgeYesNoScorer } from './judge-yes-no.js';
import { llmRubricScorer } from './llm-rubric.js';
import { similarScorers } from './similar.js';

for (const scorer of [
  llmRubricScorer,
  closedQaScorer,
  factualityScorer,
  modelGradedFactualityScorer,
  gEvalScorer,
  answerRelevanceScorer,
  contextRecallScorer,
  contextRelevanceScorer,
  contextFaithfulnessScorer,
  ...similarScorers,
  judgeYesNoScorer,
  embeddingSimilarityScorer,
])
  registerScorer(scorer);

export { readVerdict } from './llm-rubric.js';
export { SELECT_BEST_PROMPT } from './prompts.js';
export {
  askGrader,
  extractJsonObjects,
  gradingMessages,
  renderGradingPrompt,
  rubricPromptText,
} from './rubric.js';
