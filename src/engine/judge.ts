// The scoring stage: a Generation (fresh from the provider, or read back from a run log) judged
// against a case's assertions into a JobResult. No provider is called here; graded assertions
// call their graders.
import type { AssertionSpec, Case, Job, JobResult, PromptTemplate, RunTranscript } from '../core/types.js';
import type { Provider } from '../providers/types.js';
import { TransformError } from '../runtime/transform.js';
import type { Generation } from './generate.js';
import { transcriptsFor } from './generate.js';
import { type GraderPool, GradingMeter } from './graders.js';
import { errorFields, identity } from './result.js';
import { scoreCase } from './score.js';
import { transformOutput } from './transforms.js';

/** What scoring a generation needs besides the job, its case and its prompt. */
export interface JudgeContext {
  env: Record<string, string | undefined>;
  /** What scorers may know of the provider (id and config, e.g. its declared tools). */
  providerInfo: { id: string; config: Record<string, unknown> };
  /** The provider under test (a model grading itself). */
  provider: Provider;
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

/** The recorded generation fields of a result: what the model was asked and what it answered. */
function generationFields(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  g: Generation,
  startedAt: string,
) {
  const fields: Omit<JobResult, 'status' | 'output' | 'verdicts' | 'score' | 'reason'> = {
    ...identity(job, testCase, prompt, startedAt),
    prompt: g.prompt,
    latencyMs: Math.round(g.latencyMs * 1000) / 1000,
    usage: g.usage,
    cost: g.cost,
    finishReason: g.finishReason,
    cached: g.cached,
    attempts: g.attempts,
    metadata: Object.keys(testCase.metadata).length > 0 ? testCase.metadata : undefined,
  };
  if (g.logProbs !== undefined) fields.logProbs = g.logProbs;
  if (g.stream) fields.stream = g.stream;
  if (g.outputs) fields.outputs = g.outputs;
  if (g.runs) fields.runs = g.runs;
  return fields;
}

/** Scores a generation into the job's result; an unusable answer is an error result, not an exception. */
export async function judge(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  g: Generation,
  ctx: JudgeContext,
  startedAt: string,
): Promise<JobOutcome> {
  const { env } = ctx;
  const base = generationFields(job, testCase, prompt, g, startedAt);
  const meter = new GradingMeter();
  let transcripts: RunTranscript[] | undefined;
  const scoring = {
    vars: testCase.vars,
    prompt: g.prompt.text,
    env,
    response: g,
    provider: ctx.providerInfo,
    basePath: ctx.basePath,
    test: { description: testCase.description, metadata: testCase.metadata },
    // Built on first use (most scorers never read them), from the answer as generated.
    transcripts: () => {
      transcripts ??= transcriptsFor(g, g.output);
      return transcripts;
    },
    outputs: g.outputs ?? {},
    grader: ctx.graders
      ? async (spec: AssertionSpec) => {
          const grader = await ctx.graders!.resolve(spec, ctx.provider);
          return grader && meter.wrap(grader);
        }
      : undefined,
  };
  if (g.error !== undefined) {
    const result: JobResult = { ...base, ...errorFields(null, g.error), errorStage: 'generation' };
    if (ctx.scoreErrorsAs !== undefined && !g.fatal) {
      // The job stays an error; the score is what the format's own tool would give its error text.
      const errorText = ctx.scoreErrorsAs.replace('{error}', g.error);
      const outcome = await scoreCase(testCase, { ...scoring, output: errorText, outputValue: errorText });
      result.score = outcome.score;
      result.verdicts = outcome.verdicts;
      result.output = errorText;
      const grading = meter.result();
      if (grading) result.grading = grading;
    }
    return { result, fatal: g.fatal ? `${job.providerId}: ${g.error}` : undefined };
  }
  if (g.nonText !== undefined && ctx.textOnly !== undefined) {
    const reason = ctx.textOnly.replace('{what}', g.nonText);
    return { result: { ...base, ...errorFields(g.output, reason), errorStage: 'generation' } };
  }
  let outputValue = g.outputValue;
  let providerOutput: unknown = outputValue;
  let output = g.output;
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
      return { result: { ...base, ...errorFields(output, err.message), errorStage: 'scoring' } };
    }
    output = typeof outputValue === 'string' ? outputValue : JSON.stringify(outputValue);
  }
  if (output !== g.output && testCase.providerOutput === undefined) base.rawOutput = g.output;
  const outcome = await scoreCase(testCase, { ...scoring, output, outputValue, providerOutput });
  const result: JobResult = {
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
  };
  if (outcome.status === 'error') result.errorStage = 'scoring';
  return { result };
}
