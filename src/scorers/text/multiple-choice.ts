import { PyRegexError, PyRegexUnsupported, pySearch } from '../../core/python/re.js';
import { pySlice, pyStrip, pyUpper, pyWordPattern } from '../../core/python/text.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape } from '../util.js';

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
 * The Python regexes a tool builds by interpolating the answer unescaped (`options.pythonPatterns`),
 * in the order it tries them. `réponse` stays lower-case as written: against an upper-cased output
 * it only matters when the answer itself holds regex syntax (e.g. `A|B`).
 */
const PY_PATTERNS = ['\\b{c}\\b', '{c}\\)', '{c}\\.', 'réponse.*{c}'];

/** Whether any of the interpolated Python patterns finds the output, as `re.search` would. */
function rawPatternMatch(correct: string, response: string): string | undefined {
  for (const template of PY_PATTERNS) {
    const pattern = template.replace('{c}', () => correct);
    let found: boolean;
    try {
      found = pySearch(pattern, response);
    } catch (err) {
      if (err instanceof PyRegexError)
        throw new ScorerInputError(
          `the answer makes the Python regex ${JSON.stringify(pattern)} invalid (re.error: ${err.message}): a tool interpolating it stops here`,
        );
      if (err instanceof PyRegexUnsupported)
        throw new ScorerInputError(
          `the answer makes the Python regex ${JSON.stringify(pattern)}, which assay cannot reproduce: ${err.message}`,
        );
      throw err;
    }
    if (found) return `by the Python regex ${JSON.stringify(pattern)}`;
  }
  return undefined;
}

/**
 * `multiple-choice`: the output names the correct option (e.g. `B`). Both sides are stripped and
 * upper-cased (as Python's str.upper); the option counts as given when it stands as a whole word
 * (Unicode word boundaries, as Python's `\b`), or is followed by `)` or `.`. With
 * `options.prefixChars: n` it also counts when it occurs anywhere in the first n characters
 * (ÈwéBench's rule, which accepts "ABOUT" for B). With `options.pythonPatterns: true` the answer is
 * not a literal but text interpolated into the Python regexes `\b{c}\b`, `{c}\)`, `{c}\.` and
 * `réponse.*{c}`, as ÈwéBench's tool does: `A.` then matches `AB`, and an answer that makes an
 * invalid regex is an error.
 */
function scoreMultipleChoice(input: ScoreInput): ScoreResult {
  const correct = pyUpper(pyStrip(answer(input.value)));
  const n = prefixChars(input.spec.options?.prefixChars);
  const response = pyUpper(pyStrip(input.output));
  let how: string | undefined;
  if (n > 0 && pySlice(response, n).includes(correct)) how = `in the first ${n} characters`;
  else if (input.spec.options?.pythonPatterns === true) how = rawPatternMatch(correct, response);
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
      const raw = spec.options?.pythonPatterns;
      if (raw !== undefined && typeof raw !== 'boolean')
        return `"pythonPatterns" must be true or false, got ${JSON.stringify(raw)}`;
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score: scoreMultipleChoice,
};
