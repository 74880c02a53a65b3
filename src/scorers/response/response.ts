// Assertions on the provider's response rather than its text: latency, cost and perplexity.
import type { AssertionSpec } from '../../core/types.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { truncate } from '../util.js';

/**
 * Without a threshold, newer promptfoo lets latency and cost only *record* their raw value (ms, $)
 * in a named metric. That needs weight 0: a raw value of 1234 ms as a score of weight 1 would wreck
 * the case's weighted mean. Negated, "record only" means nothing, so a threshold is required.
 */
function isMetricOnly(spec: AssertionSpec): boolean {
  return (
    spec.threshold === undefined && spec.metric !== undefined && spec.weight === 0 && spec.negate !== true
  );
}

/**
 * What a latency or cost assertion without a threshold (and not in the metric-only form) is told.
 * promptfoo 0.123.1 loads such a config and errors each test that runs it, with these words; so
 * does assay, so the rest of the suite runs.
 */
function missingThreshold(type: 'latency' | 'cost'): ScorerInputError {
  return new ScorerInputError(
    type === 'latency'
      ? 'Latency assertion must have a threshold in milliseconds'
      : 'Cost assertion must have a threshold',
  );
}

/** The ms figure shown and scored: the same rounding the run log applies to a job's latency. */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * A latency or cost assertion's `value` is never read (the limit is `threshold`); CSV `latency:500`
 * becomes threshold 0.75 (spec §11 #2). The verdict stays promptfoo's; the reason says why.
 */
function ignoredValueHint(type: string, spec: AssertionSpec): string {
  if (spec.value === undefined || spec.value === null || spec.value === '') return '';
  const shown = truncate(typeof spec.value === 'string' ? spec.value : JSON.stringify(spec.value), 40);
  return ` (the value "${shown}" is ignored: the limit is the threshold; in CSV write ${type}(${shown}))`;
}

function scoreLatency(input: ScoreInput): ScoreResult {
  const { spec, response } = input;
  const negate = spec.negate === true;
  // assay keeps the model's measured latency on a cache hit (promptfoo records ~0 and refuses to
  // judge it), so a latency assertion means the same thing with or without the cache.
  const raw = response.latencyMs;
  if (spec.threshold === undefined && !isMetricOnly(spec)) throw missingThreshold('latency');
  if (raw === undefined || !Number.isFinite(raw) || raw < 0) {
    throw new ScorerInputError('Latency assertion needs the response latency, which was not recorded');
  }
  const ms = roundMs(raw);
  if (spec.threshold === undefined) {
    return { pass: true, score: ms, reason: `Latency: ${ms}ms` };
  }
  const pass = ms <= spec.threshold !== negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass
      ? 'Assertion passed'
      : `Latency ${ms}ms is ${negate ? 'less than or equal to' : 'greater than'} threshold ${spec.threshold}ms${ignoredValueHint('latency', spec)}`,
  };
}

function scoreCost(input: ScoreInput): ScoreResult {
  const { spec } = input;
  const negate = spec.negate === true;
  const cost = input.response.cost;
  if (spec.threshold === undefined) {
    if (!isMetricOnly(spec)) throw missingThreshold('cost');
    if (cost === undefined || !Number.isFinite(cost) || cost < 0) {
      throw new ScorerInputError('Cost metric requires a finite, non-negative provider cost');
    }
    return { pass: true, score: cost, reason: `Cost: $${cost}` };
  }
  if (cost === undefined || !Number.isFinite(cost)) {
    throw new ScorerInputError('Cost assertion does not support providers that do not return cost');
  }
  const pass = cost <= spec.threshold !== negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass
      ? 'Assertion passed'
      : `Cost ${cost.toPrecision(2)} is ${negate ? 'less than or equal to' : 'greater than'} threshold ${spec.threshold}${ignoredValueHint('cost', spec)}`,
  };
}

/** exp(−mean log-probability) of the output tokens; throws ScorerInputError without log-probabilities. */
export function perplexityOf(type: string, logProbs: readonly number[] | undefined): number {
  if (!logProbs || logProbs.length === 0) {
    throw new ScorerInputError(
      `${type === 'perplexity' ? 'Perplexity' : type} assertion does not support providers that do not return logProbs`,
    );
  }
  let sum = 0;
  for (const lp of logProbs) {
    if (typeof lp !== 'number' || Number.isNaN(lp)) {
      throw new ScorerInputError(`${type}: the provider returned a log-probability that is not a number`);
    }
    sum += lp;
  }
  return Math.exp(-sum / logProbs.length);
}

function scorePerplexity(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const threshold = input.spec.threshold;
  const perplexity = perplexityOf('perplexity', input.response.logProbs);
  // No threshold: the value is only computed (promptfoo passes, whatever the negation).
  const pass = threshold === undefined ? true : perplexity <= threshold !== negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass
      ? 'Assertion passed'
      : `Perplexity ${perplexity.toFixed(2)} is ${negate ? 'less than or equal to' : 'greater than'} threshold ${threshold}`,
  };
}

function scorePerplexityScore(input: ScoreInput): ScoreResult {
  const negate = input.spec.negate === true;
  const threshold = input.spec.threshold;
  const normalized = 1 / (1 + perplexityOf('perplexity-score', input.response.logProbs));
  const pass = threshold === undefined ? true : normalized >= threshold !== negate;
  return {
    pass,
    // Negated, inverted like bleu/rouge so a higher case score still means "closer to the aim".
    score: negate ? 1 - normalized : normalized,
    reason: pass
      ? 'Assertion passed'
      : `Perplexity score ${normalized.toFixed(2)} is ${negate ? 'greater than or equal to' : 'less than'} threshold ${threshold}`,
  };
}

/** A negated perplexity check without a threshold would pass every output: say so at load. */
function perplexityProblem(type: string, spec: AssertionSpec): string | undefined {
  if (spec.negate && spec.threshold === undefined) return `not-${type} needs a threshold`;
  return undefined;
}

/** latency, cost, perplexity and perplexity-score. */
export const responseScorers: Scorer[] = [
  {
    type: 'latency',
    description: 'Response latency is at most the threshold (ms); without one, records it in a metric',
    score: scoreLatency,
  },
  {
    type: 'cost',
    description: 'Response cost is at most the threshold ($); without one, records it in a metric',
    score: scoreCost,
  },
  {
    type: 'perplexity',
    description: 'Perplexity of the output (from log-probabilities) is at most the threshold',
    validate: (spec) => perplexityProblem('perplexity', spec),
    score: scorePerplexity,
  },
  {
    type: 'perplexity-score',
    description: 'Normalised perplexity 1/(1+perplexity) is at least the threshold',
    validate: (spec) => perplexityProblem('perplexity-score', spec),
    score: scorePerplexityScore,
  },
];
