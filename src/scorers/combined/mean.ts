import type { AssertionSpec } from '../../core/types.js';
import { getScorer, resolveAssertionType } from '../registry.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { describeShape } from '../util.js';

/** The sub-assertions of a `mean`, each with its type resolved (`not-x` → x, negated). */
function parts(value: unknown): AssertionSpec[] {
  if (!Array.isArray(value))
    throw new ScorerInputError(`"mean" needs a list of assertions, got ${describeShape(value)}`);
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || typeof item.type !== 'string')
      throw new ScorerInputError(
        `"mean" item ${i + 1} must be an assertion {type, value?}, got ${describeShape(item)}`,
      );
    const resolved = resolveAssertionType(item.type);
    if (!resolved) throw new ScorerInputError(`"mean" item ${i + 1}: unknown assertion type "${item.type}"`);
    const scorer = getScorer(resolved.type);
    if (scorer?.graded || scorer?.usesGrader)
      throw new ScorerInputError(
        `"mean" item ${i + 1}: "${item.type}" needs a grader, which "mean" cannot give it`,
      );
    const weight = item.weight ?? 1;
    if (typeof weight !== 'number' || !(weight >= 0))
      throw new ScorerInputError(`"mean" item ${i + 1}: weight must be a number ≥ 0`);
    return { ...item, type: resolved.type, negate: resolved.negate || item.negate === true } as AssertionSpec;
  });
}

function ifEmpty(spec: AssertionSpec): number | 'skip' {
  const v = spec.options?.ifEmpty;
  if (v === undefined || v === 'skip') return 'skip';
  if (typeof v === 'number' && v >= 0 && v <= 1) return v;
  throw new ScorerInputError(`"ifEmpty" must be a number in [0, 1] or "skip", got ${JSON.stringify(v)}`);
}

/**
 * `mean`: the weighted mean of its sub-assertions' scores. The sum runs left to right, in the
 * order given, so the floating-point result is the one a tool computing `(a + b + c) / 3` gets.
 * Skipped parts are left out; with no part left the score is `options.ifEmpty` (default: skip).
 * Passes when the mean reaches `threshold`, or, without one, when every part passes.
 */
async function scoreMean(input: ScoreInput): Promise<ScoreResult> {
  const specs = parts(input.value);
  const empty = ifEmpty(input.spec);
  let sum = 0;
  let totalWeight = 0;
  let allPass = true;
  const details: { type: string; score: number; pass: boolean; skipped?: boolean }[] = [];
  const reasons: string[] = [];
  for (const spec of specs) {
    const scorer = getScorer(spec.type)!;
    const r = await scorer.score({ ...input, spec, value: spec.value, grader: undefined });
    const type = spec.negate ? `not-${spec.type}` : spec.type;
    details.push({ type, score: r.score, pass: r.pass, ...(r.skip ? { skipped: true } : {}) });
    if (r.skip) continue;
    const w = spec.weight ?? 1;
    sum += r.score * w;
    totalWeight += w;
    if (!r.pass) {
      allPass = false;
      reasons.push(`${type}: ${r.reason}`);
    }
  }
  if (totalWeight === 0) {
    if (empty === 'skip')
      return {
        pass: true,
        score: 0,
        reason: 'No part could be scored',
        skip: true,
        details: { parts: details },
      };
    return {
      pass: empty >= (input.spec.threshold ?? 1),
      score: empty,
      reason: 'No part to score',
      details: { parts: details },
    };
  }
  const score = sum / totalWeight;
  const threshold = input.spec.threshold;
  const pass = (threshold !== undefined ? score >= threshold : allPass) !== (input.spec.negate === true);
  const reason = `Mean of ${details.length} parts: ${score.toFixed(3)}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`;
  return { pass, score, reason, details: { parts: details } };
}

export const meanScorer: Scorer = {
  type: 'mean',
  description: 'Weighted mean of the scores of a list of assertions (composite scores)',
  validate(spec) {
    try {
      ifEmpty(spec);
      for (const [i, part] of parts(spec.value).entries()) {
        const problem = getScorer(part.type)?.validate?.(part);
        if (problem) return `"mean" item ${i + 1}: ${problem}`;
      }
    } catch (err) {
      return (err as Error).message;
    }
    return undefined;
  },
  score: scoreMean,
};
