import { setMaxListeners } from 'node:events';
import { messageText, promptToMessages } from '../core/messages.js';
import { redactObject, redactText } from '../core/redact.js';
import type {
  AssertionSpec,
  Case,
  CaseOptions,
  Job,
  JobResult,
  Message,
  PromptTemplate,
  ProviderSpec,
  Suite,
} from '../core/types.js';
import type { Provider, ProviderRequest, ProviderResponse } from '../providers/types.js';
import { TransformError } from '../scorers/code/transform.js';
import { renderPrompt } from '../template/render.js';
import { cacheKey, type ResponseCache } from './cache.js';
import { caseProviderKey } from './case-providers.js';
import { applyComparisons, GroupBuffer, type Ready } from './compare.js';
import { type GraderPool, GradingMeter } from './graders.js';
import { type PlanOptions, planJobs, providerKey } from './plan.js';
import { recordedSpec, scoreCase } from './score.js';
import { transformOutput } from './transforms.js';

/** A suite's provider spec with the provider built from it. */
export interface ResolvedProvider {
  spec: ProviderSpec;
  provider: Provider;
}

export interface RunOptions extends PlanOptions {
  maxConcurrency: number;
  /** Process env overlaid with the suite's env (templates see it as `env`). */
  env: Record<string, string | undefined>;
  /** Secret values to scrub from error messages. */
  secrets?: string[];
  /** Called with every result the moment it is complete (the run log appends it). */
  onResult: (result: JobResult) => void;
  /** Stops scheduling new jobs when aborted; jobs in flight finish. */
  signal?: AbortSignal;
  /** Stops at once when aborted: requests in flight are cancelled and their jobs are not reported. */
  hardSignal?: AbortSignal;
  /** Only jobs for which this holds run (resume skips done jobs; a shard keeps its share). */
  include?: (job: Job) => boolean;
  /** Checked after each result: a reason to stop scheduling (e.g. the error budget is spent). */
  stopWhen?: () => string | undefined;
  /** Response cache: a hit replaces the provider call; successful answers are stored. */
  cache?: ResponseCache;
  /** Graders for model-graded assertions. */
  graders?: GraderPool;
  /** Milliseconds a worker waits after each provider call not answered from the cache (`--delay`). */
  delayMs?: number;
  /** A job not finished after this many milliseconds becomes an error (its call is abandoned). */
  jobTimeoutMs?: number;
  /** Past this many milliseconds from the start, jobs not finished become errors. */
  maxRunMs?: number;
  /** Providers that answer instead of the provider under test for cases naming one, by {@link caseProviderKey}. */
  caseProviders?: Map<string, Provider>;
}

/** A provider as the engine calls it: with its cache identity (computed once per run, not per job). */
interface Caller {
  provider: Provider;
  identity: Record<string, unknown>;
  cache?: ResponseCache;
  /** `--delay`: the worker waits this long after each call that reached the provider. */
  delayMs?: number;
  hardSignal?: AbortSignal;
}

/** What executing one job needs besides the job itself. */
interface JobContext extends Caller {
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

export interface RunOutcome {
  completed: number;
  /** Set when the run stopped before every job ran. */
  stopReason?: string;
  /** The stop came from the user (signal), not from a fatal provider error. */
  interrupted?: boolean;
}

/**
 * Runs every job of a suite with bounded concurrency, handing each result to `onResult` as soon as
 * it is scored. Jobs are pulled lazily from the plan, so memory does not grow with the job count.
 * A provider error becomes an `error` result; a fatal one (bad credentials) stops the run.
 */
export async function runSuite(
  suite: Suite,
  resolved: ResolvedProvider[],
  options: RunOptions,
): Promise<RunOutcome> {
  // Work a time limit gave up on must not outlive the run: its request and its delay are cut
  // when the run ends (and at once on a hard stop).
  const settled = new AbortController();
  const cut = options.hardSignal ? AbortSignal.any([options.hardSignal, settled.signal]) : settled.signal;
  setMaxListeners(0, cut);
  try {
    return await schedule(suite, resolved, options, cut);
  } finally {
    settled.abort();
  }
}

async function schedule(
  suite: Suite,
  resolved: ResolvedProvider[],
  options: RunOptions,
  cut: AbortSignal,
): Promise<RunOutcome> {
  const contexts = new Map<string, JobContext>(
    resolved.map((r) => [
      providerKey(r.spec),
      {
        provider: r.provider,
        identity: r.provider.describe(),
        env: options.env,
        cache: r.provider.cacheable === false ? undefined : options.cache,
        hardSignal: cut,
        providerInfo: { id: r.spec.id, config: r.spec.config ?? {} },
        transform: r.spec.transform,
        basePath: suite.basePath,
        graders: options.graders,
        scoreErrorsAs: suite.scoring.scoreErrorsAs,
        // A provider's own delay beats the run's (promptfoo: provider.delay ?? --delay).
        delayMs: r.spec.delayMs ?? options.delayMs,
        textOnly: suite.scoring.textOnly,
      },
    ]),
  );
  // A case's own provider answers in its place; the job keeps the column's identity and transform.
  const callers = new Map<string, Caller>();
  for (const [key, provider] of options.caseProviders ?? []) {
    callers.set(key, {
      provider,
      identity: provider.describe(),
      cache: provider.cacheable === false ? undefined : options.cache,
      delayMs: options.delayMs,
      hardSignal: cut,
    });
  }
  const providerSpecs = resolved.map((r) => r.spec);
  const prompts = new Map<string, PromptTemplate>(suite.prompts.map((p) => [p.id, p]));
  const jobs = planJobs(suite, providerSpecs, options);
  let completed = 0;
  let inFlight = 0;
  let exhausted = false;
  let stopReason: string | undefined;
  let interrupted = false;

  const deadline = options.maxRunMs ? performance.now() + options.maxRunMs : undefined;
  const runJob = async (job: Job): Promise<JobOutcome> => {
    const testCase = suite.cases[job.caseIndex];
    const prompt = prompts.get(job.promptId)!;
    const startedAt = new Date().toISOString();
    const override = testCase.options?.provider;
    try {
      const ctx = contexts.get(job.providerId)!;
      const caller = override ? callers.get(caseProviderKey(override)) : ctx;
      if (!caller)
        throw new Error(`no provider was built for the case's own provider ${providerKey(override!)}`);
      const work = executeJob(job, testCase, prompt, ctx, caller, startedAt);
      const limit = timeLimit(options.jobTimeoutMs, deadline, options.maxRunMs);
      if (!limit) return await work;
      if (limit.ms <= 0) {
        work.catch(() => {});
        return { result: errorResult(job, testCase, prompt, startedAt, limit.message) };
      }
      return await withTimeLimit(work, limit, () =>
        errorResult(job, testCase, prompt, startedAt, limit.message),
      );
    } catch (err) {
      // An engine bug or a template error must not crash the run: record it against the job.
      const message = redactText(err instanceof Error ? err.message : String(err), options.secrets ?? []);
      return { result: errorResult(job, testCase, prompt, startedAt, message) };
    }
  };

  // Jobs that finish without I/O (echo, cache hits) complete in microtasks, which would starve the
  // event loop: signals (Ctrl-C) and timers would never run. So the scheduler steps aside briefly
  // every few milliseconds.
  // Every request in flight listens to the hard-stop signal; at -j 64 that is many listeners, by design.
  if (options.hardSignal) setMaxListeners(0, options.hardSignal);
  const groups = new GroupBuffer();
  const emit = (result: JobResult): void => {
    completed++;
    const asserts = suite.cases[result.caseIndex]?.asserts ?? [];
    // Outputs that echo the test (promptfoo's testCase.assert) must list every assertion, even for
    // a job that never reached them.
    if (result.verdicts.length < asserts.length) result.asserts = asserts.map(recordedSpec);
    if (result.error && options.secrets?.length) {
      result.error = redactText(result.error, options.secrets);
      result.reason = redactText(result.reason, options.secrets);
    }
    options.onResult(result);
    if (!stopReason) stopReason = options.stopWhen?.();
  };
  // A complete group is judged across its rows, then its rows go to the log together.
  const finalize = (ready: Ready): void => {
    inFlight++;
    const self = contexts.get(ready.rows[0].providerId)?.provider;
    const grader =
      options.graders && self ? (spec: AssertionSpec) => options.graders!.resolve(spec, self) : undefined;
    applyComparisons(ready.testCase, ready.rows, { env: options.env, basePath: suite.basePath, grader })
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        for (const r of ready.rows)
          Object.assign(r, { status: 'error', score: 0, reason: message, error: message });
      })
      .then(() => {
        inFlight--;
        if (!options.hardSignal?.aborted) for (const r of ready.rows) emit(r);
        pump();
      });
  };

  let yielding = false;
  let yieldAt = performance.now() + YIELD_EVERY_MS;
  let pump: () => void = () => {};
  await new Promise<void>((resolve) => {
    pump = (): void => {
      if (yielding) return;
      if (performance.now() >= yieldAt) {
        yielding = true;
        setImmediate(() => {
          yielding = false;
          yieldAt = performance.now() + YIELD_EVERY_MS;
          pump();
        });
        return;
      }
      while (!exhausted && !stopReason && inFlight < options.maxConcurrency) {
        if (options.signal?.aborted || options.hardSignal?.aborted) {
          stopReason = 'interrupted';
          interrupted = true;
          break;
        }
        const next = jobs.next();
        if (next.done) {
          exhausted = true;
          const ready = groups.close();
          if (ready) finalize(ready);
          break;
        }
        const job = next.value;
        if (options.include && !options.include(job)) continue;
        if (groups.openGroup !== undefined && groups.openGroup !== job.group) {
          const ready = groups.close();
          if (ready) finalize(ready);
        }
        const position = job.group ? groups.start(job.group, suite.cases[job.caseIndex]) : -1;
        inFlight++;
        runJob(job).then(({ result, fatal }) => {
          inFlight--;
          // A job cut short by a hard stop has no honest result: leave it for a resume.
          if (options.hardSignal?.aborted) {
            pump();
            return;
          }
          if (fatal && !stopReason) stopReason = redactText(fatal, options.secrets ?? []);
          if (job.group) {
            const ready = groups.finish(job.group, position, result);
            if (ready) finalize(ready);
          } else emit(result);
          pump();
        });
      }
      // A group cut short by a stop can never be judged whole: its rows are left for a resume.
      if (stopReason) groups.abandon();
      if (inFlight === 0 && (exhausted || stopReason)) resolve();
    };
    options.signal?.addEventListener('abort', () => pump(), { once: true });
    options.hardSignal?.addEventListener('abort', () => pump(), { once: true });
    pump();
  });

  return { completed, stopReason, interrupted };
}

/** The time a job may still take: its own timeout or what is left of the run's, whichever is less. */
function timeLimit(
  jobTimeoutMs: number | undefined,
  deadline: number | undefined,
  maxRunMs: number | undefined,
): { ms: number; message: string } | undefined {
  const left = deadline !== undefined ? deadline - performance.now() : undefined;
  if (left !== undefined && (jobTimeoutMs === undefined || left < jobTimeoutMs))
    return { ms: left, message: `Evaluation exceeded max duration of ${maxRunMs} ms` };
  if (jobTimeoutMs !== undefined)
    return { ms: jobTimeoutMs, message: `Evaluation timed out after ${jobTimeoutMs} ms` };
  return undefined;
}

/** The job's outcome, or an error result once the limit passes (the abandoned work runs on unseen). */
function withTimeLimit(
  work: Promise<JobOutcome>,
  limit: { ms: number },
  onTimeout: () => JobResult,
): Promise<JobOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<JobOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ result: onTimeout() }), limit.ms);
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** How long the scheduler may run before letting the event loop handle signals and timers. */
const YIELD_EVERY_MS = 20;

interface JobOutcome {
  result: JobResult;
  /** Why the whole run must stop (the provider said further calls are pointless). */
  fatal?: string;
}

async function executeJob(
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
    const result: JobResult = {
      ...base,
      status: 'error',
      output: null,
      verdicts: [],
      score: 0,
      reason: response.error,
      error: response.error,
    };
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
    return {
      result: {
        ...base,
        status: 'error',
        output: response.output,
        verdicts: [],
        score: 0,
        reason,
        error: reason,
      },
    };
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
      return {
        result: {
          ...base,
          status: 'error',
          output,
          verdicts: [],
          score: 0,
          reason: err.message,
          error: err.message,
        },
      };
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

/**
 * Calls the provider unless the cache holds this exact request (provider identity, messages,
 * parameters and trial); stores successful answers. Errors are never cached.
 */
async function callWithCache(
  ctx: Caller,
  trial: number,
  request: ProviderRequest,
): Promise<ProviderResponse> {
  if (!ctx.cache) return callThenWait(ctx, request);
  const key = cacheKey(ctx.identity, { messages: request.messages, params: request.params }, trial);
  const hit = ctx.cache.get(key);
  // A hit keeps the latency measured when the model answered: it describes the model, and latency
  // assertions judge it the same way with or without the cache (`cached: true` marks the result).
  if (hit) return { ...hit, cached: true, attempts: 0 };
  const response = await callThenWait(ctx, request);
  if (response.error === undefined) ctx.cache.set(key, response);
  return response;
}

/**
 * Calls the provider, then holds the worker for `--delay` ms (promptfoo's delay: after every call
 * that reached the provider, so a cache hit costs no wait). A hard stop cuts the wait short.
 */
async function callThenWait(ctx: Caller, request: ProviderRequest): Promise<ProviderResponse> {
  const response = await ctx.provider.call(request);
  if (ctx.delayMs && ctx.delayMs > 0 && !ctx.hardSignal?.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ctx.delayMs);
      function done(): void {
        clearTimeout(timer);
        ctx.hardSignal?.removeEventListener('abort', done);
        resolve();
      }
      ctx.hardSignal?.addEventListener('abort', done, { once: true });
    });
  }
  return response;
}

/** Renders what is sent to the model for a case and prompt. */
export function buildPrompt(
  testCase: Case,
  prompt: PromptTemplate,
  env: Record<string, string | undefined>,
): { text: string; messages: Message[] } {
  const conversation = testCase.conversations?.[0];
  if (conversation) {
    // Formats without templates carry their own messages; the trailing hole is what the model fills.
    const messages = conversation.messages.filter((m) => m.content !== null);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    return { text: lastUser ? messageText(lastUser.content) : '', messages };
  }
  const text = renderPrompt(prompt.raw, testCase.vars, {
    prefix: testCase.options?.prefix,
    suffix: testCase.options?.suffix,
    env,
  });
  return { text, messages: promptToMessages(text) };
}

/** The fields that say which job a result belongs to, and the case settings outputs echo. */
function identity(job: Job, testCase: Case, prompt: PromptTemplate, startedAt: string) {
  const options = recordedOptions(testCase);
  return {
    key: job.key,
    caseId: job.caseId,
    caseIndex: job.caseIndex,
    description: testCase.description,
    promptId: job.promptId,
    promptLabel: prompt.label,
    providerId: job.providerId,
    trial: job.trial,
    vars: testCase.vars,
    ...(testCase.threshold !== undefined ? { threshold: testCase.threshold } : {}),
    ...(options ? { caseOptions: options } : {}),
    startedAt,
  };
}

const recordedOptionsOf = new WeakMap<Case, CaseOptions | undefined>();

/** A case's options as the run log keeps them (once per case): no source positions, secrets redacted. */
function recordedOptions(testCase: Case): CaseOptions | undefined {
  if (recordedOptionsOf.has(testCase)) return recordedOptionsOf.get(testCase);
  let out: CaseOptions | undefined;
  const options = testCase.options;
  if (options && Object.values(options).some((v) => v !== undefined)) {
    const { provider, ...rest } = options;
    out = redactObject(rest);
    if (provider) {
      const { source: _source, ...spec } = provider;
      out.provider = redactObject(spec);
    }
  }
  recordedOptionsOf.set(testCase, out);
  return out;
}

function errorResult(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  startedAt: string,
  message: string,
): JobResult {
  return {
    ...identity(job, testCase, prompt, startedAt),
    prompt: { text: '', messages: [] },
    status: 'error',
    output: null,
    verdicts: [],
    score: 0,
    reason: message,
    error: message,
    latencyMs: 0,
  };
}
