// `judge-yes-no`: a grader model answers a yes/no question about the output; the verdict is read
// with Python's str.strip and str.upper, as the Python harnesses that use this rule read it.

import { pyStrip, pyUpper } from '../../core/python/text.js';
import type { Message } from '../../core/types.js';
import { GraderError, type Scorer, ScorerInputError } from '../types.js';

/** The user message when the suite gives no template of its own. */
const DEFAULT_TEMPLATE = 'Output:\n{output}\n\nQuestion: {question}\n\nAnswer YES or NO.';

function stringOption(options: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = options?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** Fills `{output}` and `{question}` in one pass, so text inside the output is never substituted again. */
export function fillJudgeTemplate(template: string, output: string, question: string): string {
  return template.replace(/\{(output|question)\}/g, (_, key: string) =>
    key === 'output' ? output : question,
  );
}

export const judgeYesNoScorer: Scorer = {
  type: 'judge-yes-no',
  description:
    'A grader answers the question (the value) about the output; passes when its stripped, uppercased reply starts with options.passPrefix (default YES)',
  graded: true,
  validate(spec) {
    if (typeof spec.value !== 'string' || spec.value === '')
      return 'judge-yes-no needs a question (a non-empty string)';
    const params = spec.options?.params;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
      return 'judge-yes-no: options.params must be an object of grader parameters';
    return undefined;
  },
  async score(input) {
    const { spec } = input;
    const question = input.value;
    if (typeof question !== 'string' || question === '') {
      const custom = stringOption(spec.options, 'noValueError');
      throw new ScorerInputError(custom || 'needs a question (a non-empty string)');
    }
    if (!input.grader) throw new GraderError('no grader to ask');
    const template = stringOption(spec.options, 'template') ?? DEFAULT_TEMPLATE;
    const system = stringOption(spec.options, 'system');
    const prefix = stringOption(spec.options, 'passPrefix') ?? 'YES';
    const params = (spec.options?.params as Record<string, unknown> | undefined) ?? {};
    const messages: Message[] = [];
    if (system) messages.push({ role: 'system', content: system });
    messages.push({ role: 'user', content: fillJudgeTemplate(template, input.output, question) });
    const reply = await input.grader.complete(messages, params);
    const verdict = pyUpper(pyStrip(reply.output));
    const pass = verdict.startsWith(prefix) !== (spec.negate === true);
    const shown = verdict.length > 80 ? `${verdict.slice(0, 80)}…` : verdict;
    return {
      pass,
      score: pass ? 1 : 0,
      reason: `${input.grader.id} answered ${JSON.stringify(shown)} to ${JSON.stringify(question)}`,
      details: { judge_prompt: question, judge_verdict: verdict },
    };
  },
};
