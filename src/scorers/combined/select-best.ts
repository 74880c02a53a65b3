// promptfoo's `select-best` (spec §5.5): a grader reads every output of one test (all prompts and
// providers) and names the one that best meets the criteria; it passes, the others fail with 0.

import { promptToMessages } from '../../core/messages.js';
import type { Message } from '../../core/types.js';
import { renderPrompt } from '../../template/render.js';
import { unreadable } from '../graded/rubric.js';
import { type CompareInput, type ScoreResult, type Scorer, ScorerInputError } from '../types.js';
import { judgedAlone } from './alone.js';

/** promptfoo renders outputs that are JSON as values, so templates can reach into them. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The default question put to the grader (assay's wording of promptfoo's select-best prompt). */
function defaultMessages(criteria: string, outputs: string[]): Message[] {
  const texts = outputs.map((o, i) => `<Text index="${i}">\n${o}\n</Text>`).join('\n\n');
  return [
    {
      role: 'system',
      content:
        `Several candidate texts follow. Decide which one best satisfies this criterion: ${criteria}\n\n` +
        `${texts}\n\n` +
        'Answer with the index of the text that satisfies the criterion best, as a single integer and nothing else.',
    },
  ];
}

/** The grader's messages: a `rubricPrompt` (rendered with criteria, outputs and vars) or the default. */
function graderMessages(input: CompareInput, criteria: string, outputs: string[]): Message[] {
  const rubric = input.spec.options?.rubricPrompt;
  if (rubric === undefined || rubric === null) return defaultMessages(criteria, outputs);
  const template = typeof rubric === 'string' ? rubric : JSON.stringify(rubric);
  const rendered = renderPrompt(template, { ...input.vars, criteria, outputs: outputs.map(parsedOrText) });
  return promptToMessages(rendered);
}

async function selectBest(input: CompareInput): Promise<ScoreResult[]> {
  const criteria = input.value;
  if (typeof criteria !== 'string')
    throw new ScorerInputError('select-best needs a string value (the criteria)');
  const outputs = input.rows.map((r) => r.output);
  if (outputs.length < 2) {
    throw new ScorerInputError(
      `select-best compares the outputs of a test's prompts and providers and needs at least two; this test has ${outputs.length}`,
    );
  }
  if (!input.grader)
    throw new ScorerInputError('no grader configured (give --grader, or a provider for this assertion)');
  const reply = await input.grader.complete(graderMessages(input, criteria, outputs));
  const match = /\d+/.exec(reply.output.trim());
  // No number at all is a reply that cannot be read (promptfoo reports "verdict: NaN" as a failure,
  // which blames the outputs for the grader's answer); a number out of range fails, as in promptfoo.
  if (!match) throw unreadable(input.grader, 'named no output index', reply.output);
  const chosen = Number.parseInt(match[0], 10);
  const details = { graderReply: reply.output };
  if (chosen < 0 || chosen >= outputs.length) {
    return outputs.map(() => ({
      pass: false,
      score: 0,
      reason: `Invalid select-best verdict: ${chosen}`,
      details,
    }));
  }
  return outputs.map((_, i) =>
    i === chosen
      ? { pass: true, score: 1, reason: `Output selected as the best: ${criteria}`, details }
      : { pass: false, score: 0, reason: `Output not selected: ${criteria}`, details },
  );
}

/** `select-best`: a grader picks the best output among a test's prompts × providers. */
export const selectBestScorer: Scorer = {
  type: 'select-best',
  description:
    'a grader picks the output (among all prompts and providers of a test) that best meets the criteria',
  graded: true,
  validate(spec) {
    if (spec.negate) return 'select-best cannot be negated';
    if (typeof spec.value !== 'string' || spec.value.trim() === '')
      return 'select-best needs the criteria as a string value';
    return undefined;
  },
  compare: selectBest,
  score: judgedAlone(selectBest),
};
