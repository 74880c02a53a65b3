// `answer-relevance`: the grader writes three questions the output would answer; the mean cosine
// similarity of their embeddings to the input's (`vars.query`, else the prompt) is the score.
// As in promptfoo 0.123.1: default threshold 0.5; `not-` flips the verdict and scores 1 − score.
import { GraderError, type ScoreInput, type ScoreResult, type Scorer } from '../types.js';
import { RAG_DEFAULT_THRESHOLD, ragInverse } from './context.js';
import { ANSWER_RELEVANCY_GENERATE } from './prompts.js';
import {
  askGrader,
  requireGrader,
  rubricPromptOption,
  rubricPromptText,
  thresholdOf,
  tryParse,
} from './rubric.js';
import { cosine } from './vectors.js';

const QUESTIONS = 3;

async function score(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'answer-relevance');
  if (!grader.embed)
    throw new GraderError(
      `answer-relevance needs embeddings, but grader ${grader.embeddingId ?? grader.id} offers none: give a provider map {text: <chat model>, embedding: <embedding model>}`,
    );
  const query = typeof input.vars.query === 'string' ? input.vars.query : input.prompt;
  const template = rubricPromptText(rubricPromptOption(input), ANSWER_RELEVANCY_GENERATE);
  const questions: string[] = [];
  // Three calls with the same prompt, as promptfoo makes (a cached grader answers them alike).
  for (let i = 0; i < QUESTIONS; i++) {
    const { reply } = await askGrader(grader, template, { answer: tryParse(input.output) });
    questions.push(reply);
  }
  const [queryVector, ...questionVectors] = await grader.embed([query, ...questions]);
  const similarities = questionVectors.map((v) => cosine(queryVector, v));
  const mean = similarities.reduce((a, b) => a + b, 0) / similarities.length;
  const threshold = thresholdOf(input, RAG_DEFAULT_THRESHOLD);
  const pass = mean >= threshold - Number.EPSILON;
  return ragInverse(input, {
    pass,
    score: mean,
    reason: `Relevance ${mean.toFixed(2)} is ${pass ? 'greater' : 'less'} than threshold ${threshold}`,
    details: {
      generatedQuestions: questions.map((question, i) => ({ question, similarity: similarities[i] })),
    },
  });
}

export const answerRelevanceScorer: Scorer = {
  type: 'answer-relevance',
  description: 'questions a grader derives from the output, compared by embeddings with the query',
  graded: true,
  score,
};
