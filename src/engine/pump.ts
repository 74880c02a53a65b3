// The pump: pulls planned jobs in plan order and keeps at most `maxConcurrency` of them running,
// holds the rows of a group judged together (cross-row assertions) until the group is whole, and
// stops scheduling on a signal, a fatal provider error or the caller's stop condition. What a job
// does is the job runner's (job-runner.ts); the pump only orders, groups and stops.
import type { Secrets } from '../core/secrets.js';
import type { Case, Job, JobResult } from '../core/types.js';
import { GroupBuffer, type Ready } from './cross-row.js';
import type { JobOutcome } from './job.js';
import type { PlannedJob } from './plan.js';

export interface PumpOptions {
  maxConcurrency: number;
  /** Stops scheduling new jobs when aborted; jobs in flight finish. */
  signal?: AbortSignal;
  /** Stops at once when aborted: the results of jobs in flight are dropped (left for a resume). */
  hardSignal?: AbortSignal;
  /** Only jobs for which this holds run; the others go to `skipped`. */
  include?: (job: Job, testCase: Case) => boolean;
  /** Told of each planned job `include` leaves out, in plan order. */
  skipped?: (job: Job, testCase: Case) => void;
  /** Runs one job to its outcome (never rejects). */
  run: (job: Job, testCase: Case) => Promise<JobOutcome>;
  /** Judges a whole group across its rows, in place; a rejection makes every row an error. */
  judgeGroup: (ready: Ready) => Promise<void>;
  /** Each result, in the order results complete (a group's rows together, once judged). */
  emit: (result: JobResult, testCase: Case) => void;
  /** Checked after each result: a reason to stop scheduling (e.g. the error budget is spent). */
  stopWhen?: () => string | undefined;
  /** The run's secrets, scrubbed from a fatal error that stops the run. */
  secrets?: Secrets;
}

export interface PumpOutcome {
  /** Results emitted. */
  completed: number;
  /** Set when the pump stopped before every job ran. */
  stopReason?: string;
  /** The stop came from a signal (the user), not from a fatal error or `stopWhen`. */
  interrupted?: boolean;
}

/** How long the pump may run before letting the event loop handle signals and timers. */
const YIELD_EVERY_MS = 20;

/** Runs the planned jobs through `options.run` until they are all done or the pump stops. */
export async function pumpJobs(jobs: Iterator<PlannedJob>, options: PumpOptions): Promise<PumpOutcome> {
  let completed = 0;
  let inFlight = 0;
  let exhausted = false;
  let stopReason: string | undefined;
  let interrupted = false;

  const groups = new GroupBuffer();
  const emit = (result: JobResult, testCase: Case): void => {
    completed++;
    options.emit(result, testCase);
    if (!stopReason) stopReason = options.stopWhen?.();
  };
  // A complete group is judged across its rows, then its rows go to the log together.
  const finalize = (ready: Ready): void => {
    inFlight++;
    let judged: Promise<void>;
    try {
      judged = options.judgeGroup(ready);
    } catch (err) {
      judged = Promise.reject(err);
    }
    judged
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

  // Jobs that finish without I/O (echo, cache hits) complete in microtasks, which would starve the
  // event loop: signals (Ctrl-C) and timers would never run. So the pump steps aside briefly
  // every few milliseconds.
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
          options.skipped?.(job, testCase);
          continue;
        }
        if (groups.openGroup !== undefined && groups.openGroup !== job.group) {
          const ready = groups.close();
          if (ready) finalize(ready);
        }
        const position = job.group ? groups.start(job.group, testCase) : -1;
        inFlight++;
        options.run(job, testCase).then(({ result, fatal }) => {
          inFlight--;
          // A job cut short by a hard stop has no honest result: leave it for a resume.
          if (options.hardSignal?.aborted) {
            pump();
            return;
          }
          if (fatal && !stopReason) stopReason = options.secrets ? options.secrets.redact(fatal) : fatal;
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
