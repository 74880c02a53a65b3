// Time limits on jobs: a job's own timeout and what is left of the run's maximum duration,
// whichever ends first.
import type { JobResult } from '../core/types.js';
import { deadlines } from '../providers/deadlines.js';
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

/**
 * The job's outcome, or an error result once the limit passes (the abandoned work runs on unseen).
 * The limit is a deadline on the timer provider attempts share, not a Node timer of its own.
 */
export function withTimeLimit(
  work: Promise<JobOutcome>,
  limit: { ms: number },
  onTimeout: () => JobResult,
): Promise<JobOutcome> {
  return new Promise<JobOutcome>((resolve, reject) => {
    let settled = false;
    const deadline = deadlines.add(Math.min(limit.ms, 2_147_483_647), () => {
      if (settled) return;
      settled = true;
      resolve({ result: onTimeout() });
    });
    work.then(
      (outcome) => {
        if (settled) return;
        settled = true;
        deadline?.cancel();
        resolve(outcome);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        deadline?.cancel();
        reject(err);
      },
    );
  });
}
