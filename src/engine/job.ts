// Executing one job: build its prompt, call its provider (or take the case's fixed output), apply
// the output transforms and score the answer into a JobResult.
import type { AssertionSpec, Case, Job, JobResult, PromptTemplate } from '../core/types.js';
import type { ProviderResponse } from '../providers/types.js';
import { TransformError } from '../scorers/code/transform.js';
import { type Caller, callWithCache } from './call.js';
import { type GraderPool, GradingMeter } from './graders.js';
import { buildPrompt } from './prompt.js';
import { errorFields, errorResult, identity } from './result.js';
import { scoreCase } from './score.js';
import { transformOutput } from './transforms.js';

/** What executing one job needs besides the job itself. */
export interface JobContext extends Caller {
  env: Record<string, string | undefined>;
  hardSignal?: AbortSignal;
  /** What scorers may know of the provider (id and config, e.g. its declared tools). */
  providerInfo: { id: string; config: Record<string, unknown> };
  /** The provider's output transform, applied before the case's. */
  transform?: string;
  basePath: string;
  graders?: GraderPool;
  /** See SuiteScoring.scoreErrorsAs. */
  scoreErrorsAs?: string;
  /** See SuiteScoring.textOnly. */
  textOnly?: string;
}

/** A job's result, and whether the run must stop because of it. */
export interface JobOutcome {
  result: JobResult;
  /** Why the whole run must stop (the provider said further calls are pointless). */
  fatal?: string;
}

/** Runs one job to its result; a provider error is an error result, not an exception. */
export async function executeJob(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  ctx: JobContext,
  caller: Caller,
  startedAt: string,
): Promise<JobOutcome> {
  const { env } = ctx;
  if (testCase.error !== undefined)
    return { result: errorResult(job, testCase, prompt, startedAt, testCase.error) };
  const { text, messages } = buildPrompt(testCase, prompt, env);
  let response: ProviderResponse;
  let outputValue: unknown;
  if (testCase.providerOutput !== undefined) {
    outputValue = testCase.providerOutput;
    response = {
      output:
        typeof outputValue === 'string' || outputValue === null
          ? (outputValue as string | null)
          : JSON.stringify(outputValue),
      latencyMs: 0,
    };
  } else {
    const params = { ...(prompt.config ?? {}), ...(testCase.options?.params ?? {}) };
    response = await callWithCache(caller, job.trial, {
      prompt: text,
      messages,
      params,
      signal: ctx.hardSignal,
    });
    outputValue = response.output;
  }
  const base = {
    ...identity(job, testCase, prompt, startedAt),
    prompt: { text, messages },
    latencyMs: Math.round(response.latencyMs * 1000) / 1000,
    usage: response.usage,
    cost: response.cost,
    finishReason: response.finishReason,
    cached: response.cached,
    attempts: response.attempts,
    metadata: Object.keys(testCase.metadata).length > 0 ? testCase.metadata : undefined,
  };
  const meter = new GradingMeter();
  const scoring = {
    vars: testCase.vars,
    prompt: text,
    env,
    response,
    provider: ctx.providerInfo,
    basePath: ctx.basePath,
    test: { description: testCase.description, metadata: testCase.metadata },
    grader: ctx.graders
      ? async (spec: AssertionSpec) => {
          const grader = await ctx.graders!.resolve(spec, ctx.provider);
          return grader && meter.wrap(grader);
        }
      : undefined,
  };
  if (response.error !== undefined) {
    const result: JobResult = { ...base, ...errorFields(null, response.error) };
    if (ctx.scoreErrorsAs !== undefined && !response.fatal) {
      // The job stays an error; the score is what the format's own tool would give its error text.
      const errorText = ctx.scoreErrorsAs.replace('{error}', response.error);
      const outcome = await scoreCase(testCase, { ...scoring, output: errorText, outputValue: errorText });
      result.score = outcome.score;
      result.verdicts = outcome.verdicts;
      result.output = errorText;
      const grading = meter.result();
      if (grading) result.grading = grading;
    }
    return { result, fatal: response.fatal ? `${job.providerId}: ${response.error}` : undefined };
  }
  if (response.nonText !== undefined && ctx.textOnly !== undefined) {
    const reason = ctx.textOnly.replace('{what}', response.nonText);
    return { result: { ...base, ...errorFields(response.output, reason) } };
  }
  let providerOutput: unknown = outputValue;
  let output = response.output;
  if (output !== null && output !== undefined) {
    try {
      const transforms = { vars: testCase.vars, prompt, basePath: ctx.basePath };
      // Kept apart: a context transform reads the output after the provider's transform only.
      providerOutput = await transformOutput(outputValue, {
        ...transforms,
        providerTransform: ctx.transform,
      });
      outputValue = await transformOutput(providerOutput, {
        ...transforms,
        caseTransform: testCase.options?.transform,
      });
    } catch (err) {
      if (!(err instanceof TransformError)) throw err;
      // The provider answered; what it said could not be made into what the assertions judge.
      return { result: { ...base, ...errorFields(output, err.message) } };
    }
    output = typeof outputValue === 'string' ? outputValue : JSON.stringify(outputValue);
  }
  const outcome = await scoreCase(testCase, { ...scoring, output, outputValue, providerOutput });
  return {
    result: {
      ...base,
      status: outcome.status,
      output,
      verdicts: outcome.verdicts,
      score: outcome.score,
      reason: outcome.reason,
      error: outcome.error,
      namedScores: outcome.namedScores,
      namedScoreWeights: outcome.namedScoreWeights,
      grading: meter.result(),
    },
  };
}
