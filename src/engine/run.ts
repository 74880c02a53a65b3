// The scheduler: runs a suite's jobs with bounded concurrency, holds back rows judged together,
// and hands each result to the run log as it completes.
import { setMaxListeners } from 'node:events';
import { redactText } from '../core/redact.js';
import type {
  AssertionSpec,
  Case,
  Job,
  JobResult,
  PromptTemplate,
  ProviderSpec,
  Suite,
} from '../core/types.js';
import type { Provider } from '../providers/types.js';
import { programPrompt } from '../runtime/prompt-program.js';
import { withComputedVars } from '../runtime/var-script.js';
import type { ResponseCache } from './cache.js';
import { type Caller, callerFor } from './call.js';
import { caseProviderKey } from './case-providers.js';
import { applyComparisons, GroupBuffer, type Ready } from './cross-row.js';
import type { Generation } from './generate.js';
import type { GraderPool } from './graders.js';
import { executeJob, type JobContext, type JobOutcome } from './job.js';
import { judge } from './judge.js';
import { type PlanOptions, plannedJobs, providerKey } from './plan.js';
import { errorResult } from './result.js';
import { recordedSpec } from './score.js';
import { Threads, type TurnSource, threadKeyOf, withTurns } from './threads.js';
import { timeLimit, withTimeLimit } from './time-limit.js';

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
  include?: (job: Job, testCase: Case) => boolean;
  /**
   * What a job left out by `include` did in an earlier run (a resume), so the turns of its thread
   * after it still see its turn and the var it kept.
   */
  earlierTurn?: (job: Job) => TurnSource | undefined;
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
  /**
   * Recorded generations to score instead of calling providers (`assay rescore`): no model is asked;
   * graded assertions still ask their graders. Jobs with no recording must be left out by `include`.
   */
  recorded?: GenerationSource;
}

/** Where the scoring stage gets a job's generation when it does not come from a provider. */
export interface GenerationSource {
  generation(job: Job, testCase: Case): { generation: Generation; startedAt: string } | undefined;
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
        // A provider's own delay beats the run's (promptfoo: provider.delay ?? --delay).
        ...callerFor(r.provider, options.cache, r.spec.delayMs ?? options.delayMs, cut),
        env: options.env,
        providerInfo: { id: r.spec.id, config: r.spec.config ?? {} },
        transform: r.spec.transform,
        basePath: suite.basePath,
        graders: options.graders,
        scoreErrorsAs: suite.scoring.scoreErrorsAs,
        textOnly: suite.scoring.textOnly,
      },
    ]),
  );
  // A case's own provider answers in its place; the job keeps the column's identity and transform.
  const callers = new Map<string, Caller>();
  for (const [key, provider] of options.caseProviders ?? []) {
    callers.set(key, callerFor(provider, options.cache, options.delayMs, cut));
  }
  const providerSpecs = resolved.map((r) => r.spec);
  const prompts = new Map<string, PromptTemplate>(suite.prompts.map((p) => [p.id, p]));
  const jobs = plannedJobs(suite, providerSpecs, options);
  let completed = 0;
  let inFlight = 0;
  let exhausted = false;
  let stopReason: string | undefined;
  let interrupted = false;

  const deadline = options.maxRunMs ? performance.now() + options.maxRunMs : undefined;
  const threads = new Threads();
  // A turn of a thread its prompt reads waits for the thread's turns before it, then sees them.
  const runJob = async (job: Job, testCase: Case): Promise<JobOutcome> => {
    let prompt = prompts.get(job.promptId)!;
    if (testCase.varScripts || prompt.program) {
      // Vars computed for this job (they may read the provider), then a prompt made by a program,
      // before anything is rendered.
      const ctx = contexts.get(job.providerId)!;
      try {
        testCase = await withComputedVars(testCase, prompt.raw, ctx.providerInfo, suite.basePath);
        const label = job.providerId !== ctx.providerInfo.id ? job.providerId : undefined;
        prompt = await programPrompt(prompt, testCase.vars, { id: ctx.providerInfo.id, label });
      } catch (err) {
        const message = redactText(err instanceof Error ? err.message : String(err), options.secrets ?? []);
        const result = errorResult(job, testCase, prompt, new Date().toISOString(), message);
        return { result: { ...result, errorStage: 'generation' } };
      }
    }
    const threadKey = threadKeyOf(job, testCase, prompt);
    if (threadKey === undefined) return runTurn(job, testCase, prompt);
    const slot = await threads.enter(threadKey, testCase.thread?.storeAs);
    let outcome: JobOutcome | undefined;
    try {
      outcome = await runTurn(job, withTurns(testCase, prompt, slot), prompt);
      return outcome;
    } finally {
      slot.leave(outcome?.result);
    }
  };
  const runTurn = async (job: Job, testCase: Case, prompt: PromptTemplate): Promise<JobOutcome> => {
    const startedAt = new Date().toISOString();
    const override = testCase.options?.provider;
    try {
      const ctx = contexts.get(job.providerId)!;
      const caller = override ? callers.get(caseProviderKey(override)) : ctx;
      if (!caller)
        throw new Error(`no provider was built for the case's own provider ${providerKey(override!)}`);
      const limit = timeLimit(options.jobTimeoutMs, deadline, options.maxRunMs);
      // Work given up at its time limit is cut at once (its requests are aborted, so a command it
      // started is killed), not left running until the run ends.
      const giveUp = limit ? new AbortController() : undefined;
      const jobCaller = giveUp ? { ...caller, hardSignal: AbortSignal.any([cut, giveUp.signal]) } : caller;
      const work = options.recorded
        ? scoreRecorded(job, testCase, prompt, ctx, options.recorded)
        : executeJob(job, testCase, prompt, ctx, jobCaller, startedAt);
      if (!limit || !giveUp) return await work;
      if (limit.ms <= 0) {
        work.catch(() => {});
        giveUp.abort();
        return { result: errorResult(job, testCase, prompt, startedAt, limit.message) };
      }
      return await withTimeLimit(work, limit, () => {
        giveUp.abort();
        return errorResult(job, testCase, prompt, startedAt, limit.message);
      });
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
  const emit = (result: JobResult, testCase: Case): void => {
    completed++;
    const asserts = testCase.asserts;
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
        if (!options.hardSignal?.aborted) for (const r of ready.rows) emit(r, ready.testCase);
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
      // A stop asked for while every job is already in flight (nothing left to schedule) is still
      // a stop: the run is interrupted, whatever finishes.
      if (!stopReason && (options.signal?.aborted || options.hardSignal?.aborted)) {
        stopReason = 'interrupted';
        interrupted = true;
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
        const { job, testCase } = next.value;
        if (options.include && !options.include(job, testCase)) {
          const key = options.earlierTurn && threadKeyOf(job, testCase, prompts.get(job.promptId));
          const earlier = key ? options.earlierTurn?.(job) : undefined;
          if (key && earlier) threads.replay(key, earlier, testCase.thread?.storeAs);
          continue;
        }
        if (groups.openGroup !== undefined && groups.openGroup !== job.group) {
          const ready = groups.close();
          if (ready) finalize(ready);
        }
        const position = job.group ? groups.start(job.group, testCase) : -1;
        inFlight++;
        runJob(job, testCase).then(({ result, fatal }) => {
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
          } else emit(result, testCase);
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

/** Scores a job's recorded generation (no provider call); a case that cannot run is an error as in a live run. */
async function scoreRecorded(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate,
  ctx: JobContext,
  source: GenerationSource,
): Promise<JobOutcome> {
  const recorded = source.generation(job, testCase);
  const startedAt = recorded?.startedAt ?? new Date().toISOString();
  if (testCase.error !== undefined || !recorded) {
    const reason = testCase.error ?? 'no recorded generation for this job';
    return { result: { ...errorResult(job, testCase, prompt, startedAt, reason), errorStage: 'generation' } };
  }
  return judge(job, testCase, prompt, recorded.generation, ctx, startedAt);
}

/** How long the scheduler may run before letting the event loop handle signals and timers. */
const YIELD_EVERY_MS = 20;
