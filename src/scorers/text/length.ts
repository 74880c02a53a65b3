import { pyLen } from '../../core/python/text.js';
import type { AssertionSpec } from '../../core/types.js';
import type { Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape } from '../util.js';

function bounds(spec: AssertionSpec): { min?: number; max?: number } {
  const v = spec.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ScorerInputError(`"length" needs a value {min?, max?}, got ${describeShape(v)}`);
  const { min, max } = v as Record<string, unknown>;
  for (const [name, n] of [
    ['min', min],
    ['max', max],
  ] as const) {
    if (n !== undefined && (typeof n !== 'number' || Number.isNaN(n)))
      throw new ScorerInputError(`"length" ${name} must be a number, got ${describeShape(n)}`);
  }
  if (min === undefined && max === undefined) throw new ScorerInputError('"length" needs min or max');
  return { min: min as number | undefined, max: max as number | undefined };
}

/** `length`: the output's length in code points (what Python's `len` counts) is within [min, max]. */
export const lengthScorer: Scorer = {
  type: 'length',
  description: 'Output length in characters (code points) is within {min, max}',
  validate(spec) {
    try {
      bounds(spec);
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score(input) {
    const { min, max } = bounds(input.spec);
    const n = pyLen(input.output);
    const ok = (min === undefined || n >= min) && (max === undefined || n <= max);
    const pass = ok !== (input.spec.negate === true);
    const range = `${min ?? 0}–${max ?? '∞'}`;
    return { pass, score: pass ? 1 : 0, reason: `Output has ${n} characters (wanted ${range})` };
  },
};
