import { pySlice, pyStrip, pyWordPattern } from '../../core/python.js';
import { describeShape } from '../deterministic/util.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';

function answer(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new ScorerInputError(
    `"multiple-choice" needs the correct option as a string, got ${describeShape(value)}`,
  );
}

function prefixChars(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new ScorerInputError(`"prefixChars" must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
}

/**
 * `multiple-choice`: the output names the correct option (e.g. `B`). Both sides are stripped and
 * upper-cased; the option counts as given when it stands as a whole word (Unicode word boundaries,
 * as Python's `\b`), or is followed by `)` or `.`. With `options.prefixChars: n` it also counts
 * when it occurs anywhere in the first n characters — ÈwéBench's rule, which accepts "ABOUT" for B.
 */
function scoreMultipleChoice(input: ScoreInput): ScoreResult {
  const correct = pyStrip(answer(input.value)).toUpperCase();
  const n = prefixChars(input.spec.options?.prefixChars);
  const response = pyStrip(input.output).toUpperCase();
  let how: string | undefined;
  if (n > 0 && pySlice(response, n).includes(correct)) how = `in the first ${n} characters`;
  else if (new RegExp(pyWordPattern(correct), 'u').test(response)) how = 'as a word';
  else if (response.includes(`${correct})`) || response.includes(`${correct}.`)) how = 'followed by ) or .';
  const found = how !== undefined;
  const pass = found !== (input.spec.negate === true);
  const reason = found ? `Option ${correct} found ${how}` : `Option ${correct} not found in the output`;
  return { pass, score: pass ? 1 : 0, reason };
}

export const multipleChoiceScorer: Scorer = {
  type: 'multiple-choice',
  description:
    'Output names the correct option letter (word, "B)", "B."; optionally anywhere in its first n characters)',
  validate(spec) {
    try {
      answer(spec.value);
      prefixChars(spec.options?.prefixChars);
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score: scoreMultipleChoice,
};
