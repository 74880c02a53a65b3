// `llm-rubric`: the grader judges the output against a rubric and answers a JSON verdict
// `{reason, pass, score}` (promptfoo's matchesLlmRubric / runJsonGradingPrompt semantics).
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { DEFAULT_GRADING_PROMPT } from './prompts.js';
import {
  askGrader,
  clamp01,
  extractJsonObjects,
  requireGrader,
  rubricPromptOption,
  rubricPromptText,
  tryParse,
  unreadable,
} from './rubric.js';

/** Reads a JSON verdict as promptfoo does: `pass` defaults to true, `score` to Number(pass). */
export function readVerdict(parsed: Record<string, unknown>): {
  pass: boolean;
  score: number;
  reason?: string;
} {
  const rawPass = parsed.pass ?? true;
  const pass = typeof rawPass === 'boolean' ? rawPass : /^(true|yes|pass|y)$/i.test(String(rawPass));
  // promptfoo: a non-number score is Number(score) when finite (so `null` and "" are 0), else
  // Number(pass).
  const asNumber = Number(parsed.score);
  const score =
    typeof parsed.score === 'number' ? parsed.score : Number.isFinite(asNumber) ? asNumber : Number(pass);
  const reason = typeof parsed.reason === 'string' && parsed.reason !== '' ? parsed.reason : undefined;
  return { pass, score, reason };
}

async function score(input: ScoreInput): Promise<ScoreResult> {
  const grader = requireGrader(input, 'llm-rubric');
  const rubric = input.value ?? '';
  const template = rubricPromptText(rubricPromptOption(input), DEFAULT_GRADING_PROMPT);
  // The grading variables come after the test's vars, as in promptfoo 0.123: a test var named
  // `output` or `rubric` must not replace the reply or the rubric being graded.
  const vars = { ...input.vars, output: tryParse(input.output), rubric };
  const { reply } = await askGrader(grader, template, vars);
  const verdict = extractJsonObjects(reply)[0];
  if (!verdict) throw unreadable(grader, 'gave no JSON verdict', reply);
  const read = readVerdict(verdict);
  let { pass, score: value } = read;
  const threshold = input.spec.threshold;
  if (typeof threshold === 'number' && Number.isFinite(threshold)) pass = pass && value >= threshold;
  const reason = read.reason ?? (pass ? 'Grading passed' : `Score ${value} below threshold ${threshold}`);
  if (input.spec.negate) {
    pass = !pass;
    value = clamp01(1 - value);
  }
  return { pass, score: value, reason, details: { grader: grader.id, graderReply: reply } };
}

export const llmRubricScorer: Scorer = {
  type: 'llm-rubric',
  description: 'a grader model judges the output against a rubric (JSON verdict)',
  graded: true,
  validate(spec) {
    const v = spec.value;
    if (v !== undefined && v !== null && typeof v !== 'string' && typeof v !== 'object')
      return `"llm-rubric" assertion type must have a string or object value, got ${typeof v}`;
    return undefined;
  },
  score,
};
