// `model-graded-closedqa`: OpenAI's closed-QA eval. The grader reasons, then ends its reply with
// `Y` (criterion met) or `N`. Like promptfoo, the handler ignores `not-`.
import { type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { CLOSED_QA_PROMPT } from './prompts.js';
import {
  askGrader,
  requireGrader,
  rubricPromptOption,
  rubricPromptText,
  tryParse,
  unreadable,
} from './rubric.js';

async function score(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'model-graded-closedqa');
  if (typeof input.value !== 'string')
    throw new ScorerInputError('"model-graded-closedqa" assertion type must have a string value');
  const template = rubricPromptText(rubricPromptOption(input), CLOSED_QA_PROMPT);
  // Grading variables after the test's vars (promptfoo 0.123): a var cannot shadow them.
  const vars = {
    ...input.vars,
    input: input.prompt,
    criteria: input.value,
    completion: tryParse(input.output),
  };
  const { reply } = await askGrader(grader, template, vars);
  const end = reply.trimEnd();
  const details = { grader: grader.id, graderReply: reply };
  if (end.endsWith('Y'))
    return { pass: true, score: 1, reason: `The submission meets the criterion:\n${reply}`, details };
  if (end.endsWith('N'))
    return {
      pass: false,
      score: 0,
      reason: `The submission does not meet the criterion:\n${reply}`,
      details,
    };
  throw unreadable(grader, 'did not end its reply with Y or N', reply);
}

export const closedQaScorer: Scorer = {
  type: 'model-graded-closedqa',
  description: 'a grader model says whether the output meets a criterion (Y/N)',
  graded: true,
  validate(spec) {
    return typeof spec.value === 'string'
      ? undefined
      : '"model-graded-closedqa" assertion type must have a string value (the criterion)';
  },
  score,
};
