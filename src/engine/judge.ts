// The scoring stage: a Generation (fresh from the provider, or read back from a run log) judged
// against a case's assertions into a JobResult. No provider is called here; graded assertions
// call their graders.

import { isPlainText } from '../core/answer.js';
import type {
  AnswerRecord,
  AssertionSpec,
  Case,
  Job,
  JobResult,
  PromptTemplate,
  RunTranscript,
} from '../core/types.js';
import type { Provider } from '../providers/types.js';
import { TransformError } from '../runtime/transform.js';
import type { Generation } from './generate.js';
import { transcriptsFor } from './generate.js';
import { type GraderPool, GradingMeter } from './graders.js';
import { newResult, setError } from './result.js';
import { type ScoringContext, scoreCase } from './score.js';
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

/**
 * What the model answered, as the result records it (every field set, in a fixed order). A
 * structured answer keeps its dialect, its blocks (unless they are one text block holding the raw
 * output: implied), its value and its finish reason as the answer gave it (the rule's view is
 * derived again when the log is read: `assay rescore`, a format's results file).
 */
function answerRecord(g: Generation): AnswerRecord {
  const answer = g.answer;
  // The wire's reason, kept when it is not the one assertions saw (normalised, or hidden by the rule).
  const raw = answer !== undefined ? (answer.finishReasonRaw ?? answer.finishReason) : undefined;
  return {
    rawOutput: undefined,
    outputs: g.outputs,
    runs: g.runs,
    latencyMs: Math.round(g.latencyMs * 1000) / 1000,
    stream: g.stream,
    usage: g.usage,
    cost: g.cost,
    finishReason: g.finishReason,
    finishReasonRaw: raw !== g.finishReason ? raw : undefined,
    api: answer?.api,
    blocks: answer !== undefined && !isPlainText(answer, g.output) ? answer.blocks : undefined,
    value: answer?.value,
    cached: g.cached,
    logProbs: g.logProbs,
    attempts: g.attempts,
  };
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
  const result = newResult(job, testCase, prompt, startedAt, g.prompt, answerRecord(g));
  const meter = new GradingMeter();
  let transcripts: RunTranscript[] | undefined;
  // The output fields are set before each scoring (the context keeps one shape).
  const scoring: ScoringContext = {
    output: null,
    outputValue: undefined,
    providerOutput: undefined,
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
    setError(result, null, g.error, 'generation');
    if (ctx.scoreErrorsAs !== undefined && !g.fatal) {
      // The job stays an error; the score is what the format's own tool would give its error text.
      const errorText = ctx.scoreErrorsAs.replace('{error}', g.error);
      scoring.output = errorText;
      scoring.outputValue = errorText;
      scoring.providerOutput = errorText;
      const outcome = await scoreCase(testCase, scoring);
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
    return { result: setError(result, g.output, reason, 'generation') };
  }
  let outputValue = g.outputValue;
  let providerOutput: unknown = outputValue;
  let output = g.output;
  const caseTransform = testCase.preparation?.options?.transform;
  if (output !== null && output !== undefined) {
    // (Two awaits a job saved where there is nothing to transform.)
    if (ctx.transform !== undefined || caseTransform !== undefined)
      try {
        // Kept apart: a context transform reads the output after the provider's transform only.
        providerOutput = await transformOutput(outputValue, {
          vars: testCase.vars,
          prompt,
          basePath: ctx.basePath,
          providerTransform: ctx.transform,
        });
        outputValue = await transformOutput(providerOutput, {
          vars: testCase.vars,
          prompt,
          basePath: ctx.basePath,
          caseTransform,
        });
      } catch (err) {
        if (!(err instanceof TransformError)) throw err;
        // The provider answered; what it said could not be made into what the assertions judge.
        return { result: setError(result, output, err.message, 'scoring') };
      }
    output = typeof outputValue === 'string' ? outputValue : JSON.stringify(outputValue);
  }
  if (output !== g.output && testCase.replay?.output === undefined) result.answer.rawOutput = g.output;
  scoring.output = output;
  scoring.outputValue = outputValue;
  scoring.providerOutput = providerOutput;
  const outcome = await scoreCase(testCase, scoring);
  result.status = outcome.status;
  result.output = output;
  if (output !== null && typeof outputValue !== 'string') result.outputType = 'json';
  result.verdicts = outcome.verdicts;
  result.score = outcome.score;
  result.reason = outcome.reason;
  result.error = outcome.error;
  result.namedScores = outcome.namedScores;
  result.namedScoreWeights = outcome.namedScoreWeights;
  result.grading = meter.result();
  if (outcome.status === 'error') result.errorStage = 'scoring';
  return { result };
}
