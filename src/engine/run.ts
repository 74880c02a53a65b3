// The scheduler: runs a suite's jobs with bounded concurrency, holds back rows judged together,
// and hands each result to the run log as it completes. The pump (pump.ts) orders, groups and stops;
// the job runner (job-runner.ts) runs each job.
import { setMaxListeners } from 'node:events';
import type { AssertionSpec, Case, Job, JobResult, Suite } from '../core/types.js';
import { applyComparisons } from './cross-row.js';
import { JobRunner, type JobRunnerOptions, type ResolvedProvider } from './job-runner.js';
import { type PlanOptions, plannedJobs } from './plan.js';
import { pumpJobs } from './pump.js';
import { recordedSpec } from './score.js';

export type { GenerationSource, ResolvedProvider } from './job-runner.js';

export interface RunOptions extends PlanOptions, JobRunnerOptions {
  maxConcurrency: number;
  /** Called with every result the moment it is complete (the run log appends it). */
  onResult: (result: JobResult) => void;
  /** Stops scheduling new jobs when aborted; jobs in flight finish. */
  signal?: AbortSignal;
  /** Stops at once when aborted: requests in flight are cancelled and their jobs are not reported. */
  hardSignal?: AbortSignal;
  /** Only jobs for which this holds run (resume skips done jobs; a shard keeps its share). */
  include?: (job: Job, testCase: Case) => boolean;
  /** Checked after each result: a reason to stop scheduling (e.g. the error budget is spent). */
  stopWhen?: () => string | undefined;
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
  const runner = new JobRunner(suite, resolved, options, cut);
  // Every request in flight listens to the hard-stop signal; at -j 64 that is many listeners, by design.
  if (options.hardSignal) setMaxListeners(0, options.hardSignal);
  return pumpJobs(
    plannedJobs(
      suite,
      resolved.map((r) => r.spec),
      options,
    ),
    {
      maxConcurrency: options.maxConcurrency,
      signal: options.signal,
      hardSignal: options.hardSignal,
      include: options.include,
      skipped: (job, testCase) => runner.skipped(job, testCase),
      run: (job, testCase) => runner.run(job, testCase),
      judgeGroup: (ready) => {
        const self = runner.provider(ready.rows[0].providerId);
        const grader =
          options.graders && self ? (spec: AssertionSpec) => options.graders!.resolve(spec, self) : undefined;
        return applyComparisons(ready.testCase, ready.rows, {
          env: options.env,
          basePath: suite.basePath,
          grader,
        });
      },
      emit: (result, testCase) => {
        const asserts = testCase.asserts;
        // Outputs that echo the test (promptfoo's testCase.assert) must list every assertion, even for
        // a job that never reached them.
        if (result.verdicts.length < asserts.length)
          result.case = { ...result.case, asserts: asserts.map(recordedSpec) };
        if (result.error && options.secrets && !options.secrets.empty) {
          result.error = options.secrets.redact(result.error);
          result.reason = options.secrets.redact(result.reason);
        }
        options.onResult(result);
      },
      stopWhen: options.stopWhen,
      secrets: options.secrets,
    },
  );
}
