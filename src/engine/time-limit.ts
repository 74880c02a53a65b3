// Time limits on jobs: a job's own timeout and what is left of the run's maximum duration,
// whichever ends first.
import type { JobResult } from '../core/types.js';
import type { JobOutcome } from './job.js';

/** The time a job may still take: its own timeout or what is left of the run's, whichever is less. */
export function timeLimit(
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
export function withTimeLimit(
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
