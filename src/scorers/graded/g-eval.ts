// `g-eval`: two grader calls per criterion — evaluation steps, then a 0–10 score with a reason.
// A list of criteria scores their mean. `rubricPrompt` may be `{steps, evaluate}`.
import { type Grader, type ScoreInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { GEVAL_EVALUATE_PROMPT, GEVAL_STEPS_PROMPT } from './prompts.js';
import { askGrader, isRecord, requireGrader, rubricPromptText, tryParse, unreadable } from './rubric.js';

const MAX_SCORE = 10;
const DEFAULT_THRESHOLD = 0.7;

/** One criterion's outcome: a score in [0, 1] with the grader's reason, or a failure (promptfoo's wording). */
type Graded = { score: number; reason: string; replies: string[] } | { failure: string; replies: string[] };

/** Reads the first single-line match of `pattern` as strict JSON; an unreadable reply is an error. */
function readJson(grader: Grader, pattern: RegExp, reply: string, what: string): unknown {
  const text = pattern.exec(reply)?.[0];
  try {
    if (text !== undefined) return JSON.parse(text);
  } catch {
    // falls through to the error below
  }
  throw unreadable(grader, what, reply);
}

async function gradeOne(input: ScoreInput, criteria: string): Promise<Graded> {
  const grader = requireGrader(input, 'g-eval');
  // Only a mapping {steps, evaluate} replaces the prompts; promptfoo ignores a text rubricPrompt.
  const custom = input.spec.options?.rubricPrompt;
  const prompts = isRecord(custom) ? custom : {};
  const steps = await askGrader(grader, rubricPromptText(prompts.steps, GEVAL_STEPS_PROMPT), { criteria });
  // promptfoo reads the first single-line `{"steps"…}` as strict JSON (code fences around it are fine).
  const parsedSteps = readJson(grader, /\{"steps".+\}/, steps.reply, 'gave no {"steps": [...]} JSON');
  const list = isRecord(parsedSteps) ? parsedSteps.steps : undefined;
  // A reply that reads but proposes no usable steps fails the assertion, as in promptfoo.
  if (!Array.isArray(list))
    return {
      failure: `G-Eval steps response has invalid or missing steps: ${JSON.stringify(list)}`,
      replies: [steps.reply],
    };
  if (list.length === 0)
    return { failure: 'LLM does not propose any evaluation step', replies: [steps.reply] };
  if (!list.every((step) => typeof step === 'string' && step.trim() !== ''))
    return {
      failure: `G-Eval steps response contains invalid steps: ${JSON.stringify(list)}`,
      replies: [steps.reply],
    };
  const vars = {
    criteria,
    steps: list.join('\n- '),
    maxScore: String(MAX_SCORE),
    input: tryParse(input.prompt),
    output: tryParse(input.output),
  };
  const evaluation = await askGrader(grader, rubricPromptText(prompts.evaluate, GEVAL_EVALUATE_PROMPT), vars);
  const replies = [steps.reply, evaluation.reply];
  const result = readJson(grader, /\{.+\}/, evaluation.reply, 'gave no {"score", "reason"} JSON');
  const fields = isRecord(result) ? result : {};
  // promptfoo: a number, or non-blank text that reads as a number; anything else (a boolean, "") fails.
  const raw =
    typeof fields.score === 'number'
      ? fields.score
      : typeof fields.score === 'string' && fields.score.trim() !== ''
        ? Number(fields.score)
        : Number.NaN;
  if (!Number.isFinite(raw))
    return {
      failure: `G-Eval result has invalid or missing score: ${JSON.stringify(fields.score)}`,
      replies,
    };
  if (raw < 0 || raw > MAX_SCORE)
    return { failure: `G-Eval result score ${raw} is outside the expected 0-${MAX_SCORE} range`, replies };
  if (typeof fields.reason !== 'string' || fields.reason.trim() === '')
    return {
      failure: `G-Eval result has invalid or missing reason: ${JSON.stringify(fields.reason)}`,
      replies,
    };
  return { score: raw / MAX_SCORE, reason: fields.reason, replies };
}

async function score(input: ScoreInput): Promise<ScoreResult> {
  if (!input.prompt)
    throw new ScorerInputError('g-eval needs the prompt (no source text to judge the reply against)');
  const list = Array.isArray(input.value);
  const criteria = list ? (input.value as string[]) : [input.value as string];
  // promptfoo 0.123: `threshold ?? 0.7`, so a threshold of 0 is honoured.
  const threshold = typeof input.spec.threshold === 'number' ? input.spec.threshold : DEFAULT_THRESHOLD;
  const negate = input.spec.negate === true;
  if (criteria.length === 0)
    return {
      pass: false,
      score: 0,
      reason: 'G-Eval assertion requires at least one criterion string in the value array.',
    };
  const graded: { score: number; reason: string }[] = [];
  const replies: string[] = [];
  for (const [i, c] of criteria.entries()) {
    const g = await gradeOne(input, c);
    replies.push(...g.replies);
    // A failed criterion fails the assertion (not inverted by `not-`) and stops the list.
    if ('failure' in g) {
      const reason = list
        ? `G-Eval criterion ${i + 1}/${criteria.length} (${JSON.stringify(c)}) failed: ${g.failure}`
        : g.failure;
      return { pass: false, score: 0, reason, details: { graderReplies: replies } };
    }
    graded.push(g);
  }
  const value = graded.reduce((sum, g) => sum + g.score, 0) / graded.length;
  return {
    pass: value >= threshold !== negate,
    score: negate ? 1 - value : value,
    reason: graded.map((g) => g.reason).join('\n\n'),
    details: { graderReplies: replies },
  };
}

export const gEvalScorer: Scorer = {
  type: 'g-eval',
  description: 'G-Eval: a grader model writes evaluation steps, then scores the output 0–10',
  graded: true,
  validate(spec) {
    const v = spec.value;
    // An empty list loads and fails when run, as in promptfoo; a text rubricPrompt is ignored.
    const ok = typeof v === 'string' || (Array.isArray(v) && v.every((c) => typeof c === 'string'));
    if (!ok) return '"g-eval" assertion type must have a string value or a list of strings (the criteria)';
    return undefined;
  },
  score,
};
