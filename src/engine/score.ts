// Scoring needs the built-in scorers registered, whoever built the suite (a loader, or a library user).
import '../scorers/index.js';
import { combineVerdicts } from '../core/aggregate.js';
import { needsRedaction, redactObject } from '../core/redact.js';
import type { AssertionSpec, Case, JobStatus, RunTranscript, Verdict } from '../core/types.js';
import { runScoringScript } from '../runtime/scoring-script.js';
import { runTransform, TransformError } from '../runtime/transform.js';
import { scriptValue } from '../scorers/code/script-value.js';
import { getScorer } from '../scorers/registry.js';
import {
  type Grader,
  GraderError,
  type ScoreInput,
  type ScoreResult,
  type Scorer,
  ScorerInputError,
} from '../scorers/types.js';
import { renderAssertionValue } from '../template/render.js';

/** What the engine knows about an output when it scores it. */
export interface ScoringContext {
  output: string | null;
  outputValue: unknown;
  /** The output after the provider's transform, before the case's (what a context transform reads). */
  providerOutput?: unknown;
  vars: Record<string, unknown>;
  prompt: string;
  env?: Record<string, string | undefined>;
  response: ScoreInput['response'];
  provider?: { id: string; config: Record<string, unknown> };
  basePath?: string;
  test?: { description?: string; metadata?: Record<string, unknown> };
  /**
   * Every run of the case's conversations with its holes filled (ScoreInput.runs; the last one's
   * messages are ScoreInput.messages), built on first use: most scorers never read them.
   */
  transcripts?: () => RunTranscript[];
  /** Named hole completions (see ScoreInput.outputs). */
  outputs?: Record<string, string>;
  /** The provider's response metadata (transforms see it as `context.metadata`). */
  metadata?: Record<string, unknown>;
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
  namedScoreWeights?: Record<string, number>;
  error?: string;
}

/**
 * Scores an output against a case's assertions with promptfoo's aggregation rules: weighted mean
 * score; the case fails if any weighted assertion fails, unless a threshold is set, in which case it
 * passes iff score ≥ threshold. An unusable assertion (or a scorer or transform that throws) makes
 * the job an error: no honest verdict on the model exists. Cross-row assertions (scorers with
 * `compare`) are left out here; the engine applies them once the case's other rows are done.
 */
export async function scoreCase(testCase: Case, ctx: ScoringContext): Promise<CaseOutcome> {
  if (ctx.output === null || ctx.output === undefined) {
    return { status: 'fail', score: 0, reason: 'No output', verdicts: [], error: 'No output' };
  }
  if (testCase.asserts.length === 0) {
    return { status: 'pass', score: 1, reason: 'No assertions', verdicts: [] };
  }
  let verdicts: Verdict[] = [];
  try {
    const all = scoreAll(testCase.asserts, ctx);
    verdicts = all instanceof Promise ? await all : all;
  } catch (err) {
    const reason = err instanceof AssertionError ? err.message : `assertion threw: ${errorMessage(err)}`;
    return { status: 'error', score: 0, reason, verdicts, error: reason };
  }
  const rules = testCase.scoring;
  const outcome = aggregate(verdicts, rules?.threshold, rules?.thresholdDigits);
  if (rules?.scoreScript === undefined || outcome.status === 'skip') return outcome;
  // The case's own scoring function replaces the weighted average (its verdicts stay as they are).
  const decided = await runScoringScript(rules.scoreScript, {
    namedScores: outcome.namedScores ?? {},
    threshold: rules.threshold,
    verdicts,
    basePath: ctx.basePath,
  });
  // (outcome is this call's own object.)
  outcome.status = decided.pass ? 'pass' : 'fail';
  outcome.score = decided.score;
  outcome.reason = decided.reason;
  if (decided.namedScores) outcome.namedScores = decided.namedScores;
  return outcome;
}

/** An assertion could not be judged; the message already names it. */
class AssertionError extends Error {}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether an assertion is judged across rows (after the case's other rows), not here. */
export function isComparing(spec: AssertionSpec): boolean {
  return getScorer(spec.type)?.compare !== undefined;
}

/**
 * Scores assertions in order, skipping cross-row ones; the first that cannot be judged throws.
 * Synchronous scorers are called without a promise or a microtask each (the common case: text
 * checks); the list goes on asynchronously from the first assertion that needs it.
 */
function scoreAll(specs: AssertionSpec[], ctx: ScoringContext): Verdict[] | Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    if (isComparing(spec)) continue;
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = scoreAssertion(spec, ctx);
    } catch (err) {
      throw unjudged(spec, err);
    }
    if (verdict instanceof Promise) return scoreRest(specs, ctx, verdicts, i, verdict);
    verdicts.push(verdict);
  }
  return verdicts;
}

/** scoreAll from the assertion at `i` on, its verdict pending. */
async function scoreRest(
  specs: AssertionSpec[],
  ctx: ScoringContext,
  verdicts: Verdict[],
  i: number,
  pending: Promise<Verdict>,
): Promise<Verdict[]> {
  try {
    verdicts.push(await pending);
  } catch (err) {
    throw unjudged(specs[i], err);
  }
  for (let j = i + 1; j < specs.length; j++) {
    const spec = specs[j];
    if (isComparing(spec)) continue;
    try {
      verdicts.push(await scoreAssertion(spec, ctx));
    } catch (err) {
      throw unjudged(spec, err);
    }
  }
  return verdicts;
}

/** Why an assertion could not be judged, as the job's error names it. */
function unjudged(spec: AssertionSpec, err: unknown): AssertionError {
  if (err instanceof AssertionError) return err;
  const label = spec.negate ? `not-${spec.type}` : spec.type;
  // A transform's message names the transform; promptfoo shows it as the row's error as is.
  if (err instanceof TransformError) return new AssertionError(err.message);
  return new AssertionError(
    // A scorer's own complaint says what went wrong: it gets the assertion's name in front, once.
    err instanceof ScorerInputError || err instanceof GraderError
      ? `${label}: ${err.message}`
      : `${label} threw: ${errorMessage(err)}`,
  );
}

/**
 * One assertion's verdict: at once when nothing about it is asynchronous (no transform, group,
 * grader or value script, and a scorer that answers synchronously), else a promise.
 */
function scoreAssertion(spec: AssertionSpec, ctx: ScoringContext): Verdict | Promise<Verdict> {
  const scorer = getScorer(spec.type);
  if (!scorer) throw new ScorerInputError(`unknown assertion type "${spec.type}"`);
  if (
    spec.transform !== undefined ||
    scorer.group ||
    scorer.graded ||
    scorer.usesGrader ||
    spec.valueScript !== undefined
  )
    return scoreAssertionAsync(spec, ctx, scorer);
  const value = spec.literal ? spec.value : renderAssertionValue(spec.value, ctx.vars, ctx.env);
  const input = scoreInput(ctx, ctx.output, ctx.outputValue, value, spec, undefined, undefined);
  const result = scorer.score(input);
  // (Any thenable: a plugin's scorer may answer with a promise of another realm.)
  if (typeof (result as { then?: unknown } | undefined)?.then === 'function')
    return Promise.resolve(result).then((r) => verdictOf(spec, ctx, value, r, undefined));
  return verdictOf(spec, ctx, value, result as ScoreResult, undefined);
}

async function scoreAssertionAsync(
  spec: AssertionSpec,
  ctx: ScoringContext,
  scorer: Scorer,
): Promise<Verdict> {
  let { output, outputValue } = ctx;
  if (spec.transform !== undefined) {
    outputValue = await runTransform(
      spec.transform,
      outputValue,
      { vars: ctx.vars, prompt: { label: ctx.prompt }, ...(ctx.metadata ? { metadata: ctx.metadata } : {}) },
      { basePath: ctx.basePath },
    );
    output = typeof outputValue === 'string' ? outputValue : JSON.stringify(outputValue);
  }
  // A group's children see the output as transformed for the group (promptfoo sets have no transform).
  const children = scorer.group
    ? await scoreAll(spec.children ?? [], withOutput(ctx, output, outputValue))
    : undefined;
  let value = spec.literal ? spec.value : renderAssertionValue(spec.value, ctx.vars, ctx.env);
  const grader = scorer.graded || scorer.usesGrader ? await ctx.grader?.(spec) : undefined;
  if (scorer.graded && !grader)
    throw new ScorerInputError('no grader configured (give --grader, or a provider for this assertion)');
  const input = scoreInput(ctx, output, outputValue, value, spec, grader, children);
  if (spec.valueScript !== undefined) {
    const computed = await scriptValue(spec, input);
    if ('failure' in computed) return failedVerdict(spec, computed.failure);
    value = input.value = computed.value;
  }
  return verdictOf(spec, ctx, value, await scorer.score(input), children);
}

/** What a scorer is given. */
function scoreInput(
  ctx: ScoringContext,
  output: string | null,
  outputValue: unknown,
  value: unknown,
  spec: AssertionSpec,
  grader: Grader | undefined,
  children: Verdict[] | undefined,
): ScoreInput {
  // Plain data fields only: an object literal with getters is built by V8's slow path (≈ 1 µs
  // each, three times a job on the echo bench). The transcripts are made once per job and shared.
  const runs = ctx.transcripts?.() ?? [];
  return {
    output: output ?? '',
    outputValue,
    providerOutput: 'providerOutput' in ctx ? ctx.providerOutput : ctx.outputValue,
    value,
    spec,
    vars: ctx.vars,
    prompt: ctx.prompt,
    response: ctx.response,
    provider: ctx.provider,
    basePath: ctx.basePath,
    test: ctx.test,
    messages: runs.length > 0 ? runs[runs.length - 1].messages : [],
    outputs: ctx.outputs ?? {},
    runs,
    grader,
    children,
  };
}

/** A scorer's result as the verdict the log keeps: every field in place, in the order the log writes them. */
function verdictOf(
  spec: AssertionSpec,
  ctx: ScoringContext,
  value: unknown,
  result: ScoreResult,
  children: Verdict[] | undefined,
): Verdict {
  const weight = spec.weight ?? 1;
  const named =
    result.namedScores && Object.keys(result.namedScores).length > 0 ? result.namedScores : undefined;
  // (Absent fields are left out of the JSON.)
  return {
    type: spec.negate ? `not-${spec.type}` : spec.type,
    // A weight-0 assertion is informational: recorded, never failing the case.
    pass: weight === 0 || result.skip === true ? true : result.pass,
    score: result.score,
    reason: result.reason,
    weight,
    metric: spec.metric !== undefined ? renderMetricName(spec.metric, ctx) : undefined,
    renderedValue: value !== spec.value && typeof value === 'string' ? value : undefined,
    namedScores: named,
    namedScoreWeights: named && result.namedScoreWeights ? result.namedScoreWeights : undefined,
    skipped: result.skip ? true : undefined,
    details: result.details ? result.details : undefined,
    children,
    assertion: recordedSpec(spec),
    error: undefined,
  };
}

/** The scoring context of a group's children: the output as transformed for the group. */
function withOutput(ctx: ScoringContext, output: string | null, outputValue: unknown): ScoringContext {
  const copy = Object.assign({}, ctx);
  copy.output = output;
  copy.outputValue = outputValue;
  return copy;
}

/** Assertions as the run log keeps them, made once per assertion (specs are not changed once loaded). */
const recordedSpecs = new WeakMap<AssertionSpec, AssertionSpec>();

/**
 * The spec as the run log keeps it: positions dropped (they are not the assertion), secrets
 * redacted. Made once per assertion and shared by its verdicts, which never change it.
 */
export function recordedSpec(spec: AssertionSpec): AssertionSpec {
  // A spec with no position, no children and nothing secret is its own record (a CSV cell's: no
  // copy, and no table entry, per row).
  if (!('source' in spec) && !('children' in spec) && !needsRedaction(spec)) return spec;
  let out = recordedSpecs.get(spec);
  if (out === undefined) {
    const { source: _source, children, ...rest } = spec;
    out = redactObject(rest);
    if (children) out.children = children.map(recordedSpec);
    recordedSpecs.set(spec, out);
  }
  return out;
}

function renderMetricName(metric: string, ctx: ScoringContext): string {
  try {
    const rendered = renderAssertionValue(metric, ctx.vars, ctx.env);
    return typeof rendered === 'string' ? rendered : metric;
  } catch {
    return metric;
  }
}

/**
 * Combines verdicts into a case outcome (promptfoo's rules, see the spec §6.1–6.2). Skipped verdicts
 * (a scorer that could not judge) are left out; a case whose every verdict skipped is `skip`.
 */
export function aggregate(
  all: Verdict[],
  threshold: number | undefined,
  thresholdDigits?: number,
): CaseOutcome {
  const c = combineVerdicts(all, threshold, thresholdDigits);
  if (c.skip) return { status: 'skip', score: 0, reason: c.reason, verdicts: all };
  const outcome: CaseOutcome = {
    status: c.pass ? 'pass' : 'fail',
    score: c.score,
    reason: c.reason,
    verdicts: all,
  };
  if (c.namedScores) outcome.namedScores = c.namedScores;
  if (c.namedScoreWeights) outcome.namedScoreWeights = c.namedScoreWeights;
  return outcome;
}

/** The verdict of an assertion whose expected value could not be computed (its script failed). */
function failedVerdict(spec: AssertionSpec, reason: string): Verdict {
  const weight = spec.weight ?? 1;
  const verdict: Verdict = {
    type: spec.negate ? `not-${spec.type}` : spec.type,
    pass: weight === 0,
    score: 0,
    reason,
    weight,
  };
  verdict.assertion = recordedSpec(spec);
  return verdict;
}
