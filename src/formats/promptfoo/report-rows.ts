// One row of promptfoo's results JSON (an EvaluateResult) from one run-log result, in promptfoo's
// shapes: its test case, grading result with flattened component results, response and tokens.

import { recordedAnswer } from '../../core/answer.js';
import { isRecord } from '../../core/records.js';
import {
  type AssertionSpec,
  type CaseOptions,
  type JobResult,
  SELF_GRADER,
  type Verdict,
} from '../../core/types.js';
import { PROMPTFOO_RULE } from './output-rule.js';
import { sanitizeForPromptfoo } from './sanitize.js';

/** promptfoo's ResultFailureReason. */
export const FAILURE = { NONE: 0, ASSERT: 1, ERROR: 2 } as const;

export interface TokenTotals {
  total: number;
  prompt: number;
  completion: number;
  cached: number;
  numRequests: number;
  /** The graders' share, as promptfoo reports it beside the answers' tokens. */
  assertions?: TokenTotals;
}

export function emptyTokens(): TokenTotals {
  return { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 };
}

/** promptfoo's completion details, which assay does not count (all zero). */
function noDetails(): Record<string, number> {
  return {
    reasoning: 0,
    acceptedPrediction: 0,
    rejectedPrediction: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
  };
}

/**
 * Token totals as promptfoo writes a token usage (a row's, a response's, a column's, the run's):
 * its order, its completion details, and the graders' share under `assertions`.
 */
export function writtenTokens(t: TokenTotals): Record<string, unknown> {
  const a = t.assertions ?? emptyTokens();
  return {
    prompt: t.prompt,
    completion: t.completion,
    cached: t.cached,
    total: t.total,
    numRequests: t.numRequests,
    completionDetails: noDetails(),
    assertions: {
      total: a.total,
      prompt: a.prompt,
      completion: a.completion,
      cached: a.cached,
      numRequests: a.numRequests,
      completionDetails: noDetails(),
    },
  };
}

/** A result's token usage in promptfoo's shape (a cached answer counts its tokens as cached). */
export function tokensOf(r: JobResult): TokenTotals {
  const prompt = r.answer.usage?.prompt ?? 0;
  const completion = r.answer.usage?.completion ?? 0;
  const total = r.answer.usage?.total ?? prompt + completion;
  return {
    total,
    prompt,
    completion,
    cached: r.answer.cached ? total : 0,
    numRequests: r.answer.cached ? 0 : 1,
  };
}

/** A result's grader tokens in promptfoo's shape (`gradingResult.tokensUsed`), or undefined. */
function gradingTokensOf(r: JobResult): TokenTotals | undefined {
  const g = r.grading;
  if (!g) return undefined;
  return {
    total: g.total,
    prompt: g.prompt,
    completion: g.completion,
    cached: g.cachedTokens,
    numRequests: g.calls - g.cached,
  };
}

/** Adds a result's grader tokens to a total's `assertions` part. */
export function addGradingTokens(into: TokenTotals, r: JobResult): void {
  const t = gradingTokensOf(r);
  if (!t) return;
  into.assertions ??= emptyTokens();
  addTokens(into.assertions, t);
}

export function addTokens(into: TokenTotals, t: TokenTotals): void {
  into.total += t.total;
  into.prompt += t.prompt;
  into.completion += t.completion;
  into.cached += t.cached;
  into.numRequests += t.numRequests;
}

/** An assertion as promptfoo writes it: `not-` folded into the type, the grader as `provider`, a set's members under `assert`. */
function promptfooAssertion(spec: AssertionSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { type: spec.negate ? `not-${spec.type}` : spec.type };
  if (spec.children) out.assert = spec.children.map(promptfooAssertion);
  if (spec.value !== undefined) out.value = spec.value;
  if (spec.threshold !== undefined) out.threshold = spec.threshold;
  if (spec.weight !== undefined) out.weight = spec.weight;
  if (spec.metric !== undefined) out.metric = spec.metric;
  if (spec.transform !== undefined) out.transform = spec.transform;
  if (spec.grader && spec.grader.id !== SELF_GRADER)
    out.provider = spec.grader.config ? { id: spec.grader.id, config: spec.grader.config } : spec.grader.id;
  return out;
}

/** The assertion a verdict judged, as promptfoo writes it (a verdict from an old run may lack its spec). */
function verdictAssertion(v: Verdict): Record<string, unknown> {
  return v.assertion ? promptfooAssertion(v.assertion) : { type: v.type };
}

const ZERO_TOKENS: TokenTotals = { total: 0, prompt: 0, completion: 0, cached: 0, numRequests: 0 };

/**
 * One verdict as a promptfoo component result. A group (assert-set) is written as promptfoo's set
 * result: no assertion of its own, its members' results and `metadata.assertionSet`. A skipped
 * verdict judged nothing: it is marked as promptfoo marks results that count in no pass/fail tally
 * (`metadata.metricOnly`), with `metadata.skipped`.
 */
function componentResult(v: Verdict): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (v.skipped) Object.assign(metadata, { skipped: true, metricOnly: true });
  if (v.children) {
    const spec = v.assertion;
    metadata.assertionSet = {
      type: 'assert-set',
      assertionCount: spec?.children?.length ?? v.children.length,
      ...(spec?.metric !== undefined ? { metric: spec.metric } : {}),
      ...(spec?.threshold !== undefined ? { threshold: spec.threshold } : {}),
      ...(spec?.weight !== undefined ? { weight: spec.weight } : {}),
    };
    return {
      pass: v.pass,
      score: v.score,
      reason: v.error ?? v.reason,
      namedScores: v.namedScores ?? {},
      ...(v.namedScoreWeights ? { namedScoreWeights: v.namedScoreWeights } : {}),
      componentResults: flattenVerdicts(v.children),
      metadata,
    };
  }
  if (v.renderedValue !== undefined) metadata.renderedAssertionValue = v.renderedValue;
  if (v.metric !== undefined && v.metric !== v.assertion?.metric) metadata.renderedMetric = v.metric;
  const nested = scriptComponents(v);
  // A script's own fields (its `metadata` merged under assay's) come first, as promptfoo spreads
  // the returned object into the result.
  const scriptFields = v.details?.scriptFields;
  const extra = isRecord(scriptFields) ? scriptFields : {};
  if (isRecord(extra.metadata)) Object.assign(metadata, { ...extra.metadata, ...metadata });
  return {
    ...extra,
    pass: v.pass,
    score: v.score,
    reason: v.error ?? v.reason,
    assertion: verdictAssertion(v),
    ...(v.namedScores ? { namedScores: v.namedScores } : {}),
    ...(nested ? { componentResults: nested } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The component results a script assertion returned (kept in the verdict's details), if any. */
function scriptComponents(v: Verdict): unknown[] | undefined {
  const nested = v.details?.componentResults;
  return Array.isArray(nested) ? nested : undefined;
}

/**
 * promptfoo's flattened component results: each set's result followed by its members' results,
 * and a script's result (its own `componentResults` kept in it) followed by those components, one
 * level, each under the script's assertion unless it names its own (promptfoo's
 * AssertionsResult.testResult).
 */
function flattenVerdicts(verdicts: Verdict[]): Record<string, unknown>[] {
  return verdicts.flatMap((v) => {
    if (v.children) return [componentResult(v), ...flattenVerdicts(v.children)];
    const nested = scriptComponents(v);
    if (!nested) return [componentResult(v)];
    const parent = verdictAssertion(v);
    return [
      componentResult(v),
      ...nested.map((sub) => {
        const fields = isRecord(sub) ? sub : {};
        return { ...fields, assertion: fields.assertion || parent };
      }),
    ];
  });
}

/** Whether promptfoo counts a component result in its assertion pass/fail tallies. */
export function countsAsAssertion(c: Record<string, unknown>): boolean {
  return (c.metadata as { metricOnly?: boolean } | undefined)?.metricOnly !== true;
}

/**
 * promptfoo's failure reason and error text for a result's status. promptfoo has no skipped row: a
 * case whose every assertion skipped did not pass, and nothing errored, so it is written as promptfoo
 * writes its other such rows (a missing output): `success: false`, failure reason 0, counted as a failure.
 */
function outcomeOf(r: JobResult): { success: boolean; failureReason: number; error?: string } {
  if (r.status === 'pass') return { success: true, failureReason: FAILURE.NONE };
  if (r.status === 'error')
    return { success: false, failureReason: FAILURE.ERROR, error: r.error ?? r.reason };
  // promptfoo counts a missing output as a failure with no failure reason (§6.1).
  if (r.output === null)
    return { success: false, failureReason: FAILURE.NONE, error: r.error ?? 'No output' };
  if (r.status === 'skip') return { success: false, failureReason: FAILURE.NONE, error: r.reason };
  return { success: false, failureReason: FAILURE.ASSERT, error: r.reason };
}

/** The case's options as promptfoo's `testCase.options` (provider parameters sit beside prefix and suffix). */
function testOptions(options: CaseOptions | undefined): Record<string, unknown> {
  if (!options) return {};
  const { params, provider: _provider, ...rest } = options;
  const out: Record<string, unknown> = { ...(params ?? {}) };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  return out;
}

/** promptfoo's `testCase`: the test after defaultTest was merged in, every assertion listed. */
function testCaseOf(r: JobResult, threadVar: string | undefined): Record<string, unknown> {
  const testCase: Record<string, unknown> = {};
  if (r.case.description !== undefined) testCase.description = r.case.description;
  // promptfoo reads `file://` vars when it renders, so its test keeps the references. The thread's
  // earlier turns (`_conversation`) are the engine's, not the test's: promptfoo writes no such var.
  const vars = r.case.varsAsWritten ?? r.case.vars;
  if (threadVar !== undefined && vars && threadVar in vars) {
    const { [threadVar]: _turns, ...own } = vars;
    testCase.vars = own;
  } else testCase.vars = vars;
  testCase.assert = r.case.asserts
    ? r.case.asserts.map(promptfooAssertion)
    : r.verdicts.map(verdictAssertion);
  testCase.options = testOptions(r.case.options);
  testCase.metadata = r.case.metadata ?? {};
  if (r.case.threshold !== undefined) testCase.threshold = r.case.threshold;
  const provider = r.case.options?.provider;
  if (provider)
    testCase.provider = {
      id: provider.id,
      ...(provider.label !== undefined ? { label: provider.label } : {}),
      ...(provider.config ? { config: provider.config } : {}),
    };
  return testCase;
}

/** promptfoo's `gradingResult`, or null for a row whose assertions never ran to the end (an error, no output). */
function gradingResultOf(r: JobResult, success: boolean): Record<string, unknown> | null {
  if (r.status === 'error' || r.output === null) return null;
  const tokensUsed = gradingTokensOf(r) ?? { ...ZERO_TOKENS };
  if (r.verdicts.length === 0) return { pass: success, score: r.score, reason: r.reason, tokensUsed };
  return {
    pass: success,
    score: r.score,
    reason: r.reason,
    namedScores: r.namedScores ?? {},
    ...(r.namedScoreWeights ? { namedScoreWeights: r.namedScoreWeights } : {}),
    tokensUsed,
    componentResults: flattenVerdicts(r.verdicts),
  };
}

/** One EvaluateResult (a row of promptfoo's `results.results`). */
export function promptfooResult(
  r: JobResult,
  ctx: {
    promptIdx: number;
    repeat: number;
    provider: { id: string; label: string };
    promptConfig?: Record<string, unknown>;
    /** The prompt's thread var (manifest), left out of the vars written. */
    threadVar?: string;
  },
): Record<string, unknown> {
  const { success, failureReason, error } = outcomeOf(r);
  const usage = reportsUsage(r);
  // A provider that reports no usage (promptfoo's LocalAI) counts none, whatever the API said.
  const tokens = usage ? tokensOf(r) : emptyTokens();
  if (!usage && !r.answer.cached) tokens.numRequests = 1;
  const grading = gradingTokensOf(r);
  if (grading) tokens.assertions = grading;
  const written = writtenTokens(tokens);
  // An output that was a value (tool calls, a transform's object) is written as that value.
  const response: Record<string, unknown> = {
    output: r.outputType === 'json' && r.output !== null ? JSON.parse(r.output) : r.output,
  };
  if (r.status === 'error' && r.error !== undefined) response.error = r.error;
  // promptfoo's response has no usage when the call failed, or when its provider reports none.
  if (!(r.status === 'error' && r.errorStage !== 'scoring') && usage) response.tokenUsage = written;
  response.cached = r.answer.cached === true;
  if (r.answer.cost !== undefined) response.cost = r.answer.cost;
  if (r.answer.finishReason !== undefined) response.finishReason = r.answer.finishReason;
  response.latencyMs = r.answer.latencyMs;
  const gradingResult = gradingResultOf(r, success);
  // promptfoo sanitises these three before writing them (sanitize.ts); `vars` is the test's vars.
  const testCase = sanitizeForPromptfoo(testCaseOf(r, ctx.threadVar));
  const prompt = sanitizeForPromptfoo({
    raw: r.prompt.text,
    label: r.promptLabel,
    ...(ctx.promptConfig ? { config: ctx.promptConfig } : {}),
  });
  return {
    id: r.key,
    ...(r.case.description !== undefined ? { description: r.case.description } : {}),
    promptIdx: ctx.promptIdx,
    testIdx: r.caseIndex * ctx.repeat + r.trial,
    testCase,
    promptId: r.promptId,
    provider: ctx.provider,
    prompt,
    vars: testCase.vars,
    response,
    ...(error !== undefined ? { error } : {}),
    failureReason,
    success,
    score: r.score,
    latencyMs: r.answer.latencyMs,
    gradingResult,
    // promptfoo's rows take their named scores from the grading result; an error row has none.
    namedScores: gradingResult ? (r.namedScores ?? {}) : {},
    cost: r.answer.cost ?? 0,
    metadata: r.case.metadata ?? {},
    tokenUsage: written,
  };
}

/** Whether promptfoo's provider for the answer's API reports token usage at all (its LocalAI provider does not). */
function reportsUsage(r: JobResult): boolean {
  const answer = recordedAnswer(r.answer, r.answer.rawOutput !== undefined ? r.answer.rawOutput : r.output);
  // (Which answers carry usage depends on the API only, not on any config: none is given.)
  return (
    answer === undefined || PROMPTFOO_RULE.derive(answer, { config: {}, params: {} }).reportsUsage !== false
  );
}
