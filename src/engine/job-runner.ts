// The job runner: one planned job to its outcome. It prepares the job (vars computed by scripts, a
// prompt made by a program, the turns of its thread before it), then generates and judges it, or
// judges its recorded generation (a re-score), within the job's time limit. Whatever goes wrong is
// the job's error result, never an exception. The order jobs run in is the pump's (pump.ts).

import type { OutputRule } from '../core/answer.js';
import { isoNow } from '../core/clock.js';
import type { Secrets } from '../core/secrets.js';
import type { Case, Job, PromptTemplate, ProviderSpec, Suite } from '../core/types.js';
import { unwatch, watch } from '../providers/retry.js';
import type { Provider } from '../providers/types.js';
import { programPrompt } from '../runtime/prompt-program.js';
import { withComputedVars } from '../runtime/var-script.js';
import type { ResponseCache } from './cache.js';
import { type Caller, callerFor } from './call.js';
import { caseProviderKey } from './case-providers.js';
import { type Generation, jobParams, rederive } from './generate.js';
import type { GraderPool } from './graders.js';
import { executeJob, type JobContext, type JobOutcome } from './job.js';
import { judge } from './judge.js';
import { providerKey } from './plan.js';
import { errorResult } from './result.js';
import { Threads, type TurnSource, threadKeyOf, withTurns } from './threads.js';
import { timeLimit, withTimeLimit } from './time-limit.js';

/** A suite's provider spec with the provider built from it. */
export interface ResolvedProvider {
  spec: ProviderSpec;
  provider: Provider;
}

/** Where the scoring stage gets a job's generation when it does not come from a provider. */
export interface GenerationSource {
  generation(job: Job, testCase: Case): { generation: Generation; startedAt: string } | undefined;
}

/** What a job needs of the run: its environment, cache, graders, delays and time limits. */
export interface JobRunnerOptions {
  /** Process env overlaid with the suite's env (templates see it as `env`). */
  env: Record<string, string | undefined>;
  /** The run's secrets, scrubbed from error messages. */
  secrets?: Secrets;
  /**
   * What a job left out by `include` did in an earlier run (a resume), so the turns of its thread
   * after it still see its turn and the var it kept.
   */
  earlierTurn?: (job: Job) => TurnSource | undefined;
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
  /**
   * The suite's output rule (Suite.answerRule, resolved: core/answer.ts `outputRule`): how a
   * structured answer becomes the output assertions see. Default: the `default` rule.
   */
  outputRule?: OutputRule;
}

/** What the job runner needs of the suite: its prompts, folder and scoring settings. */
type SuiteView = Pick<Suite, 'prompts' | 'basePath' | 'scoring'>;

/** Runs single jobs of one run; built once per run. */
export class JobRunner {
  private readonly contexts: Map<string, JobContext>;
  /** A case's own provider answers in its place; the job keeps the column's identity and transform. */
  private readonly callers = new Map<string, Caller>();
  private readonly prompts: Map<string, PromptTemplate>;
  private readonly threads = new Threads();
  private readonly deadline: number | undefined;

  /** `cut` ends work a time limit gave up on (and everything, on a hard stop). */
  constructor(
    private readonly suite: SuiteView,
    resolved: ResolvedProvider[],
    private readonly options: JobRunnerOptions,
    private readonly cut: AbortSignal,
  ) {
    this.contexts = new Map<string, JobContext>(
      resolved.map((r) => [
        providerKey(r.spec),
        {
          // A provider's own delay beats the run's (promptfoo: provider.delay ?? --delay).
          ...callerFor(
            r.provider,
            options.cache,
            r.spec.delayMs ?? options.delayMs,
            cut,
            options.outputRule,
            r.spec.config,
          ),
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
    for (const [key, provider] of options.caseProviders ?? []) {
      this.callers.set(key, callerFor(provider, options.cache, options.delayMs, cut, options.outputRule));
    }
    this.prompts = new Map<string, PromptTemplate>(suite.prompts.map((p) => [p.id, p]));
    this.deadline = options.maxRunMs ? performance.now() + options.maxRunMs : undefined;
  }

  /** The provider of a column, by its key. */
  provider(providerId: string): Provider | undefined {
    return this.contexts.get(providerId)?.provider;
  }

  /**
   * A job the run leaves out (done in an earlier run): the later turns of its thread still see its
   * turn and the var it kept.
   */
  skipped(job: Job, testCase: Case): void {
    const key = this.options.earlierTurn && threadKeyOf(job, testCase, this.prompts.get(job.promptId));
    const earlier = key ? this.options.earlierTurn?.(job) : undefined;
    if (key && earlier) this.threads.replay(key, earlier, testCase.thread?.storeAs);
  }

  /** Runs one job. A turn of a thread its prompt reads waits for the thread's turns before it, then sees them. */
  async run(job: Job, testCase: Case): Promise<JobOutcome> {
    let prompt = this.prompts.get(job.promptId)!;
    if (testCase.preparation?.varScripts || prompt.program) {
      // Vars computed for this job (they may read the provider), then a prompt made by a program,
      // before anything is rendered.
      const ctx = this.contexts.get(job.providerId)!;
      try {
        testCase = await withComputedVars(testCase, prompt.raw, ctx.providerInfo, this.suite.basePath);
        const label = job.providerId !== ctx.providerInfo.id ? job.providerId : undefined;
        prompt = await programPrompt(prompt, testCase.vars, { id: ctx.providerInfo.id, label });
      } catch (err) {
        const message = scrubbed(err, this.options.secrets);
        return {
          result: errorResult(job, testCase, prompt, isoNow(), message, 'generation'),
        };
      }
    }
    const threadKey = threadKeyOf(job, testCase, prompt);
    if (threadKey === undefined) return this.runTurn(job, testCase, prompt);
    const slot = await this.threads.enter(threadKey, testCase.thread?.storeAs);
    let outcome: JobOutcome | undefined;
    try {
      outcome = await this.runTurn(job, withTurns(testCase, prompt, slot), prompt);
      return outcome;
    } finally {
      slot.leave(outcome?.result);
    }
  }

  /** Generates and judges a prepared job (or judges its recording) within its time limit. */
  private async runTurn(job: Job, testCase: Case, prompt: PromptTemplate): Promise<JobOutcome> {
    const options = this.options;
    const startedAt = isoNow();
    const override = testCase.preparation?.options?.provider;
    try {
      const ctx = this.contexts.get(job.providerId)!;
      const caller = override ? this.callers.get(caseProviderKey(override)) : ctx;
      if (!caller)
        throw new Error(`no provider was built for the case's own provider ${providerKey(override!)}`);
      const limit = timeLimit(options.jobTimeoutMs, this.deadline, options.maxRunMs);
      // Work given up at its time limit is cut at once (its requests are aborted, so a command it
      // started is killed), not left running until the run ends.
      if (!limit) {
        return await (options.recorded
          ? scoreRecorded(job, testCase, prompt, ctx, options.recorded)
          : executeJob(job, testCase, prompt, ctx, caller, startedAt));
      }
      // The job's own signal aborts on a hard stop too (what AbortSignal.any would give, for a
      // set entry on the run's signal instead of a listener per job).
      const giveUp = new AbortController();
      const cut = this.cut;
      const onCut = (): void => giveUp.abort(cut.reason);
      if (cut.aborted) onCut();
      else watch(cut, onCut);
      const jobCaller = { ...caller, hardSignal: giveUp.signal };
      const work = options.recorded
        ? scoreRecorded(job, testCase, prompt, ctx, options.recorded)
        : executeJob(job, testCase, prompt, ctx, jobCaller, startedAt);
      try {
        if (limit.ms <= 0) {
          work.catch(() => {});
          giveUp.abort();
          return { result: errorResult(job, testCase, prompt, startedAt, limit.message) };
        }
        return await withTimeLimit(work, limit, () => {
          giveUp.abort();
          return errorResult(job, testCase, prompt, startedAt, limit.message);
        });
      } finally {
        unwatch(cut, onCut);
      }
    } catch (err) {
      // An engine bug or a template error must not crash the run: record it against the job.
      const message = scrubbed(err, options.secrets);
      return { result: errorResult(job, testCase, prompt, startedAt, message) };
    }
  }
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
  const startedAt = recorded?.startedAt ?? isoNow();
  if (testCase.error !== undefined || !recorded) {
    const reason = testCase.error ?? 'no recorded generation for this job';
    return { result: errorResult(job, testCase, prompt, startedAt, reason, 'generation') };
  }
  // The recorded answer is read again by this suite's rule: scorers see what a live run would give.
  rederive(recorded.generation, ctx, jobParams(testCase, prompt));
  return judge(job, testCase, prompt, recorded.generation, ctx, startedAt);
}

/** An error's message with the run's secrets redacted. */
function scrubbed(err: unknown, secrets: Secrets | undefined): string {
  const message = err instanceof Error ? err.message : String(err);
  return secrets ? secrets.redact(message) : message;
}
