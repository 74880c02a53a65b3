/**
 * The attempt loop of the call policy, for anything that makes one attempt at a time: bounded
 * attempts, full-jitter exponential backoff or the server's Retry-After (capped), a deadline per
 * attempt that aborts it and, if it ignores the abort, abandons it, and a slot of the endpoint's
 * adaptive limiter held during each attempt (never during a wait).
 */
import type { AdaptiveLimiter } from './limiter.js';
import type { AttemptFailure, RetryPolicy } from './types.js';

/** Seams for tests: the waits between attempts and the jitter source. */
export interface AttemptHooks {
  /** Waits between attempts; resolves early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1); drives the backoff jitter. */
  random?: () => number;
}

export interface AttemptLoopOptions extends AttemptHooks {
  policy: RetryPolicy;
  limiter: AdaptiveLimiter;
  /** Cancels the call: the attempt in flight and any further ones. */
  signal?: AbortSignal;
  /**
   * The attempts answer without waiting on anything outside the process (echo): they cannot
   * stall or hang, so no stall timer, deadline timer or abort listener is set for them.
   */
  atOnce?: boolean;
}

/** How the last attempt ended. */
export type AttemptsEnd<T> =
  /** The attempt answered: a success, a failure not worth retrying, or the last of the failures. */
  | { kind: 'answered'; value: T; failure?: AttemptFailure; attempts: number }
  /** The last attempt had no answer by its deadline. */
  | { kind: 'timeout'; timeoutMs: number; attempts: number }
  /** The caller cancelled (no attempt may have been made: `attempts` 0). */
  | { kind: 'aborted'; attempts: number }
  /** The attempt threw, which a provider should never do; not retried. */
  | { kind: 'threw'; error: unknown; attempts: number };

/**
 * Runs `attempt` until it succeeds, fails for good, or the attempts run out. `judge` says how an
 * answer failed (undefined: it did not). `attempt` gets its abort signal on demand: creating one
 * costs more than a whole echo call, and an attempt that does no I/O never asks. Never throws.
 */
export async function runAttempts<T>(
  attempt: (signal: () => AbortSignal) => Promise<T>,
  judge: (value: T) => AttemptFailure | undefined,
  options: AttemptLoopOptions,
): Promise<AttemptsEnd<T>> {
  const { policy, limiter, signal } = options;
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts) || 1);
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    if (signal?.aborted) return { kind: 'aborted', attempts: n - 1 };
    const wait = limiter.acquire();
    if (wait) await wait;
    // A hung attempt gives its slot back once it has stalled (limiter.stallAfterMs), so it cannot
    // hold capacity healthy requests need; it still ends at its own deadline.
    let stalled = false;
    const started = performance.now();
    let ended: AttemptEnd<T>;
    if (options.atOnce) ended = await answeredAtOnce(attempt, signal);
    else {
      const stallTimer = setTimeout(() => {
        stalled = true;
        limiter.releaseStalled();
      }, limiter.stallAfterMs());
      stallTimer.unref?.();
      ended = await withinDeadline(attempt, policy.timeoutMs, signal);
      clearTimeout(stallTimer);
    }
    const failure = ended.kind === 'answered' ? judge(ended.value) : undefined;
    if (ended.kind === 'answered') limiter.observe(performance.now() - started);
    if (!stalled) limiter.release(failure?.rateLimited === true);
    if (ended.kind === 'aborted' || ended.kind === 'threw') return { ...ended, attempts: n };
    if (ended.kind === 'answered' && !failure?.transient)
      return { kind: 'answered', value: ended.value, failure, attempts: n };
    if (n >= maxAttempts || signal?.aborted) {
      return ended.kind === 'timeout'
        ? { kind: 'timeout', timeoutMs: policy.timeoutMs, attempts: n }
        : { kind: 'answered', value: ended.value, failure, attempts: n };
    }
    const asked =
      failure?.retryAfterMs !== undefined && Number.isFinite(failure.retryAfterMs)
        ? failure.retryAfterMs
        : undefined;
    await sleep(
      asked !== undefined ? Math.min(policy.maxDelayMs, Math.round(asked)) : backoffDelay(n, policy, random),
      signal,
    );
  }
}

/** "request timed out (…)", the words every timeout message starts with. */
export function timedOut(timeoutMs: number | undefined): string {
  return timeoutMs === undefined
    ? 'request timed out'
    : `request timed out (no complete response within ${timeoutMs} ms)`;
}

/** Full-jitter exponential backoff before retry number `retry` (1 = first retry), capped. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * Math.max(0, ceiling));
}

type AttemptEnd<T> =
  | { kind: 'answered'; value: T }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'threw'; error: unknown };

/** One attempt of a provider that cannot hang (see AttemptLoopOptions.atOnce): no timers. */
async function answeredAtOnce<T>(
  attempt: (signal: () => AbortSignal) => Promise<T>,
  outer: AbortSignal | undefined,
): Promise<AttemptEnd<T>> {
  let controller: AbortController | undefined;
  const signal = (): AbortSignal => {
    controller ??= new AbortController();
    if (outer?.aborted && !controller.signal.aborted) controller.abort(outer.reason);
    return controller.signal;
  };
  try {
    const value = await attempt(signal);
    return outer?.aborted ? { kind: 'aborted' } : { kind: 'answered', value };
  } catch (error) {
    return outer?.aborted ? { kind: 'aborted' } : { kind: 'threw', error };
  }
}

/**
 * One attempt under a deadline. At the deadline, or when the caller cancels, the attempt's signal
 * aborts and the attempt is abandoned at once: one that ignores its signal cannot hold the call.
 */
function withinDeadline<T>(
  attempt: (signal: () => AbortSignal) => Promise<T>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<AttemptEnd<T>> {
  let controller: AbortController | undefined;
  let abortReason: unknown;
  let aborted = false;
  const abort = (reason: unknown): void => {
    aborted = true;
    abortReason = reason;
    controller?.abort(reason);
  };
  const signal = (): AbortSignal => {
    if (!controller) {
      controller = new AbortController();
      if (aborted) controller.abort(abortReason);
    }
    return controller.signal;
  };
  return new Promise<AttemptEnd<T>>((resolve) => {
    let settled = false;
    const finish = (end: AttemptEnd<T>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
      resolve(end);
    };
    const onOuterAbort = (): void => {
      finish({ kind: 'aborted' });
      abort(outer?.reason);
    };
    // setTimeout fires at once beyond 2^31-1 ms; a non-positive or non-finite timeout means none.
    const timer =
      Number.isFinite(timeoutMs) && timeoutMs > 0
        ? setTimeout(
            () => {
              finish({ kind: 'timeout' });
              abort(new Error(`timed out after ${timeoutMs} ms`));
            },
            Math.min(timeoutMs, 2_147_483_647),
          )
        : undefined;
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let running: Promise<T>;
    try {
      running = attempt(signal);
    } catch (error) {
      finish({ kind: 'threw', error });
      return;
    }
    running.then(
      (value) => {
        // An answer that arrives only because its signal aborted is the caller's cancellation.
        finish(outer?.aborted ? { kind: 'aborted' } : { kind: 'answered', value });
      },
      (error: unknown) => finish(outer?.aborted ? { kind: 'aborted' } : { kind: 'threw', error }),
    );
  });
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
