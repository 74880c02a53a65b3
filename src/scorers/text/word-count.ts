import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape, hasTemplate, writtenType } from '../util.js';

/** What a word-count value asks for: an exact count, or inclusive bounds (either may be absent). */
type WordCountRule = { exact: number } | { min?: number; max?: number };

/** Words as promptfoo counts them: whitespace-separated runs of the trimmed output. */
export function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** A count from a number or numeric string (YAML and CSV give "50"); undefined when it is neither. */
function asCount(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isNaN(n) ? undefined : n;
  }
  return undefined;
}

/** Why a count cannot be met by any output, or undefined when it is a usable count. */
function countProblem(what: string, n: number): string | undefined {
  // Word counts are whole and non-negative: 2.5 or -1 would fail (or pass) every output silently.
  if (!Number.isInteger(n) || n < 0) return `${what} must be a whole number ≥ 0, got ${n}`;
  return undefined;
}

/** Reads a word-count value; throws ScorerInputError on a shape no output could be judged against. */
function ruleOf(value: unknown): WordCountRule {
  if (value === undefined || value === null) {
    throw new ScorerInputError('"word-count" assertion must have a value');
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { min: rawMin, max: rawMax, ...rest } = value as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) {
      throw new ScorerInputError(`"word-count" object takes only "min" and "max", got "${extra[0]}"`);
    }
    const min = rawMin === undefined ? undefined : asCount(rawMin);
    const max = rawMax === undefined ? undefined : asCount(rawMax);
    if (rawMin !== undefined && min === undefined) {
      throw new ScorerInputError(`"word-count" min must be a number, got ${describeShape(rawMin)}`);
    }
    if (rawMax !== undefined && max === undefined) {
      throw new ScorerInputError(`"word-count" max must be a number, got ${describeShape(rawMax)}`);
    }
    if (min === undefined && max === undefined) {
      throw new ScorerInputError('"word-count" assertion object must have "min" and/or "max" properties');
    }
    const problem =
      (min !== undefined ? countProblem('"word-count" min', min) : undefined) ??
      (max !== undefined ? countProblem('"word-count" max', max) : undefined);
    if (problem) throw new ScorerInputError(problem);
    if (min !== undefined && max !== undefined && min > max) {
      throw new ScorerInputError(
        `"word-count" assertion: min (${min}) must be less than or equal to max (${max})`,
      );
    }
    return { min, max };
  }
  const exact = asCount(value);
  if (exact === undefined) {
    throw new ScorerInputError(
      `"word-count" assertion value must be a number or an object with min/max properties, got ${describeShape(value)}`,
    );
  }
  const problem = countProblem('"word-count" value', exact);
  if (problem) throw new ScorerInputError(problem);
  return { exact };
}

function scoreWordCount(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const rule = ruleOf(input.value);
  const n = countWords(input.output);
  let met: boolean;
  let failure: string;
  if ('exact' in rule) {
    met = n === rule.exact;
    failure = negate
      ? `Expected word count to not equal ${rule.exact}, but got ${n}`
      : `Word count ${n} does not equal expected ${rule.exact}`;
  } else if (rule.min !== undefined && rule.max !== undefined) {
    met = n >= rule.min && n <= rule.max;
    failure = negate
      ? `Expected word count to not be between ${rule.min} and ${rule.max}, but got ${n}`
      : `Word count ${n} is not between ${rule.min} and ${rule.max}`;
  } else if (rule.max !== undefined) {
    met = n <= rule.max;
    failure = negate
      ? `Expected word count to be greater than ${rule.max}, but got ${n}`
      : `Word count ${n} is greater than maximum ${rule.max}`;
  } else {
    const min = rule.min ?? 0;
    met = n >= min;
    failure = negate
      ? `Expected word count to be less than ${min}, but got ${n}`
      : `Word count ${n} is less than minimum ${min}`;
  }
  const pass = met !== negate;
  return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : failure };
}

/** Load-time check: the value's shape and bounds (a templated string is judged once rendered). */
function validateWordCount(spec: AssertionSpec): string | undefined {
  const v = spec.value;
  if (v === undefined || v === null) return `${writtenType('word-count', spec)} needs a value, got no value`;
  if (typeof v === 'string' && hasTemplate(v)) return undefined;
  try {
    ruleOf(v);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return undefined;
}

/** `word-count`: exact number of words, or `{min, max}` (inclusive, either optional). */
export const wordCountScorer: Scorer = {
  type: 'word-count',
  description: 'Output has exactly N words, or between min and max words (inclusive)',
  validate: validateWordCount,
  score: scoreWordCount,
};
