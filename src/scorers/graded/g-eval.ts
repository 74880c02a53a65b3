// `g-eval`: two grader calls per criterion — evaluation steps, then a 0–10 score with a reason.
// A list of criteria scores their mean. `rubricPrompt` may be `{steps, evaluate}`.
import { type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { GEVAL_EVALUATE_PROMPT, GEVAL_STEPS_PROMPT } from './prompts.js';
import { askGrader, isRecord, requireGrader, rubricPromptText, tryParse, unreadable } from './rubric.js';

const MAX_SCORE = 10;
const DEFAULT_THRESHOLD = 0.7;

async function gradeOne(
  input: ScoreInput,
  criteria: string,
): Promise<{ score: number; reason: string; replies: string[] }> {
  const grader = requireGrader(input, 'g-eval');
  const custom = input.spec.options?.rubricPrompt;
  const prompts = isRecord(custom) ? custom : {};
  const steps = await askGrader(grader, rubricPromptText(prompts.steps, GEVAL_STEPS_PROMPT), { criteria });
  // promptfoo reads the first single-line `{"steps"…}` object, tolerating code fences around it.
  const stepsJson = /\{"steps".+\}/.exec(steps.reply)?.[0];
  let list: unknown;
  try {
    list = stepsJson ? (JSON.parse(stepsJson) as { steps?: unknown }).steps : undefined;
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list)) throw unreadable(grader, 'gave no {"steps": [...]} JSON', steps.reply);
  if (list.length === 0) throw unreadable(grader, 'proposed no evaluation steps', steps.reply);
  const vars = {
    criteria,
    steps: list.join('\n- '),
    maxScore: String(MAX_SCORE),
    input: tryParse(input.prompt),
    output: tryParse(input.output),
  };
  const evaluation = await askGrader(grader, rubricPromptText(prompts.evaluate, GEVAL_EVALUATE_PROMPT), vars);
  const resultJson = /\{.+\}/.exec(evaluation.reply)?.[0];
  let result: unknown;
  try {
    result = resultJson ? JSON.parse(resultJson) : undefined;
  } catch {
    result = undefined;
  }
  if (!isRecord(result)) throw unreadable(grader, 'gave no {"score", "reason"} JSON', evaluation.reply);
  const raw = typeof result.score === 'number' ? result.score : Number(result.score);
  if (result.score === undefined || result.score === null || !Number.isFinite(raw))
    throw unreadable(grader, 'gave no numeric score', evaluation.reply);
  const reason = typeof result.reason === 'string' ? result.reason : '';
  return { score: raw / MAX_SCORE, reason, replies: [steps.reply, evaluation.reply] };
}

async function score(input: ScoreInput): Promise<ScoreResult> {
  if (!input.prompt)
    throw new ScorerInputError('g-eval needs the prompt (no source text to judge the reply against)');
  const criteria = typeof input.value === 'string' ? [input.value] : (input.value as string[]);
  // A threshold of 0 falls back to the default too: promptfoo tests it for truthiness.
  const threshold = input.spec.threshold || DEFAULT_THRESHOLD;
  const graded = [];
  for (const c of criteria) graded.push(await gradeOne(input, c));
  let value = graded.reduce((sum, g) => sum + g.score, 0) / graded.length;
  let pass = value >= threshold;
  const reason = graded.map((g) => g.reason).join('\n\n');
  if (input.spec.negate) {
    pass = !pass;
    value = 1 - value;
  }
  return { pass, score: value, reason, details: { graderReplies: graded.flatMap((g) => g.replies) } };
}

export const gEvalScorer: Scorer = {
  type: 'g-eval',
  description: 'G-Eval: a grader model writes evaluation steps, then scores the output 0–10',
  graded: true,
  validate(spec) {
    const v = spec.value;
    const ok =
      typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === 'string'));
    if (!ok)
      return '"g-eval" assertion type must have a string value or a non-empty list of strings (the criteria)';
    const custom = spec.options?.rubricPrompt;
    if (custom !== undefined && custom !== null && !isRecord(custom))
      return 'g-eval `rubricPrompt` must be a mapping {steps, evaluate}';
    return undefined;
  },
  score,
};
