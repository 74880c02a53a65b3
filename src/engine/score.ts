import type { AssertionSpec, Case, JobStatus, Verdict } from '../core/types.js';
import { getScorer } from '../scorers/registry.js';
import { type Grader, type ScoreInput, ScorerInputError } from '../scorers/types.js';
import { renderAssertionValue } from '../template/render.js';

/** What the engine knows about an output when it scores it. */
export interface ScoringContext {
  output: string | null;
  outputValue: unknown;
  vars: Record<string, unknown>;
  prompt: string;
  env?: Record<string, string | undefined>;
  response: ScoreInput['response'];
  provider?: { id: string; config: Record<string, unknown> };
  basePath?: string;
  test?: { description?: string; metadata?: Record<string, unknown> };
  /** The grader for an assertion (its own, `--grader`, the suite's), or undefined when none is configured. */
  grader?: (spec: AssertionSpec) => Promise<Grader | undefined>;
}

/** The outcome of scoring one output against a case's assertions. */
export interface CaseOutcome {
  status: JobStatus;
  score: number;
  reason: string;
  verdicts: Verdict[];
  namedScores?: Record<string, number>;
  error?: string;
}

/**
 * Scores an output against a case's assertions with promptfoo's aggregation rules: weighted mean
 * score; the case fails if any weighted assertion fails, unless a threshold is set, in which case it
 * passes iff score ≥ threshold. An unusable assertion (or a scorer that throws) makes the job an
 * error: no honest verdict on the model exists.
 */
export async function scoreCase(testCase: Case, ctx: ScoringContext): Promise<CaseOutcome> {
  if (ctx.output === null || ctx.output === undefined) {
    return { status: 'fail', score: 0, reason: 'No output', verdicts: [], error: 'No output' };
  }
  if (testCase.asserts.length === 0) {
    return { status: 'pass', score: 1, reason: 'No assertions', verdicts: [] };
  }
  const verdicts: Verdict[] = [];
  for (const spec of testCase.asserts) {
    try {
      verdicts.push(await scoreAssertion(spec, ctx));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const label = spec.negate ? `not-${spec.type}` : spec.type;
      const reason = err instanceof ScorerInputError ? `${label}: ${message}` : `${label} threw: ${message}`;
      return { status: 'error', score: 0, reason, verdicts, error: reason };
    }
  }
  return aggregate(verdicts, testCase.threshold);
}

async function scoreAssertion(spec: AssertionSpec, ctx: ScoringContext): Promise<Verdict> {
  const scorer = getScorer(spec.type);
  if (!scorer) throw new ScorerInputError(`unknown assertion type "${spec.type}"`);
  const value = spec.literal ? spec.value : renderAssertionValue(spec.value, ctx.vars, ctx.env);
  const grader = scorer.graded || scorer.usesGrader ? await ctx.grader?.(spec) : undefined;
  if (scorer.graded && !grader)
    throw new ScorerInputError('no grader configured (give --grader, or a provider for this assertion)');
  const result = await scorer.score({
    output: ctx.output ?? '',
    outputValue: ctx.outputValue,
    value,
    spec,
    vars: ctx.vars,
    prompt: ctx.prompt,
    response: ctx.response,
    provider: ctx.provider,
    basePath: ctx.basePath,
    test: ctx.test,
    grader,
  });
  const weight = spec.weight ?? 1;
  const verdict: Verdict = {
    type: spec.negate ? `not-${spec.type}` : spec.type,
    // A weight-0 assertion is informational: recorded, never failing the case.
    pass: weight === 0 ? true : result.pass,
    score: result.score,
    reason: result.reason,
    weight,
  };
  if (spec.metric !== undefined) verdict.metric = renderMetricName(spec.metric, ctx);
  if (value !== spec.value && typeof value === 'string') verdict.renderedValue = value;
  if (result.namedScores && Object.keys(result.namedScores).length > 0)
    verdict.namedScores = result.namedScores;
  if (result.skip) {
    verdict.skipped = true;
    verdict.pass = true;
  }
  if (result.details) verdict.details = result.details;
  return verdict;
}

function renderMetricName(metric: string, ctx: ScoringContext): string {
  try {
    const rendered = renderAssertionValue(metric, ctx.vars, ctx.env);
    return typeof rendered === 'string' ? rendered : metric;
  } catch {
    return metric;
  }
}

function addMetric(
  sums: Map<string, { sum: number; weight: number }>,
  name: string,
  value: number,
  weight: number,
): void {
  const m = sums.get(name) ?? { sum: 0, weight: 0 };
  m.sum += value * weight;
  m.weight += weight;
  sums.set(name, m);
}

/**
 * Combines verdicts into a case outcome (promptfoo's rules, see the spec §6.1–6.2). Skipped verdicts
 * (a scorer that could not judge) are left out; a case whose every verdict skipped is `skip`.
 */
export function aggregate(all: Verdict[], threshold: number | undefined): CaseOutcome {
  const verdicts = all.filter((v) => !v.skipped);
  if (verdicts.length === 0 && all.length > 0)
    return { status: 'skip', score: 0, reason: all[0].reason, verdicts: all };
  let weighted = 0;
  let totalWeight = 0;
  let allPass = true;
  let failReason: string | undefined;
  const metricSums = new Map<string, { sum: number; weight: number }>();
  for (const v of verdicts) {
    weighted += v.score * v.weight;
    totalWeight += v.weight;
    if (!v.pass) {
      allPass = false;
      failReason = v.reason;
    }
    // Weight-0 assertions still report their raw score in their metric (promptfoo's F1/MAPE recipes rely on it).
    const w = v.weight === 0 ? 1 : v.weight;
    if (v.metric !== undefined) addMetric(metricSums, v.metric, v.score, w);
    // A scorer's own metrics (a script's namedScores) are merged in with the assertion's weight.
    if (v.namedScores)
      for (const [name, value] of Object.entries(v.namedScores)) addMetric(metricSums, name, value, w);
  }
  const score = totalWeight > 0 ? weighted / totalWeight : 0;
  let pass = allPass;
  let reason = allPass ? 'All assertions passed' : (failReason ?? 'Assertion failed');
  if (typeof threshold === 'number' && !Number.isNaN(threshold)) {
    pass = score >= threshold;
    reason = `Aggregate score ${score.toFixed(2)} ${pass ? '≥' : '<'} ${threshold} threshold`;
  }
  const outcome: CaseOutcome = { status: pass ? 'pass' : 'fail', score, reason, verdicts: all };
  if (metricSums.size > 0) {
    outcome.namedScores = {};
    for (const [name, m] of metricSums) outcome.namedScores[name] = m.weight > 0 ? m.sum / m.weight : 0;
  }
  return outcome;
}
