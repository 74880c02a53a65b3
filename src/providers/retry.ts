/**
 * The attempt loop of the call policy, for anything that makes one attempt at a time: bounded
 * attempts, full-jitter exponential backoff or the server's Retry-After (capped), a deadline per
 * attempt that aborts it and, if it ignores the abort, abandons it, and a slot of the endpoint's
 * adaptive limiter held during each attempt (never during a wait).
 */
import { type Deadline, deadlines } from './deadlines.js';
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
 * answer failed (undefined: it did not). `attempt` gets its cancellation as an AttemptAbort, whose
 * AbortSignal is made only when read: creating one costs more than a whole echo call, and an
 * attempt that does no I/O never asks. Never throws.
 */
export async function runAttempts<T>(
  attempt: (abort: AttemptAbort) => Promise<T>,
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
    if (wait) {
      await wait;
      // Cancelled while it waited for the slot (a hard stop): no attempt, the slot goes to the next.
      if (signal?.aborted) {
        limiter.unused();
        return { kind: 'aborted', attempts: n - 1 };
      }
    }
    // A hung attempt gives its slot back once it has stalled (limiter.stallAfterMs), so it cannot
    // hold capacity healthy requests need; it still ends at its own deadline.
    let stalled = false;
    const started = performance.now();
    let ended: AttemptEnd<T>;
    if (options.atOnce) ended = await answeredAtOnce(attempt, signal);
    else {
      const stall = deadlines.add(
        limiter.stallAfterMs(),
        () => {
          stalled = true;
          limiter.releaseStalled();
        },
        false,
      );
      // The attempt's end cancels its stall mark at once (an end at the deadline included).
      ended = await withinDeadline(attempt, policy.timeoutMs, signal, stall);
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

/** One attempt of a provider that cannot hang (see AttemptLoopOptions.atOnce): no timers, no listeners. */
async function answeredAtOnce<T>(
  attempt: (abort: AttemptAbort) => Promise<T>,
  outer: AbortSignal | undefined,
): Promise<AttemptEnd<T>> {
  try {
    const value = await attempt(new AttemptAbort(outer));
    return outer?.aborted ? { kind: 'aborted' } : { kind: 'answered', value };
  } catch (error) {
    return outer?.aborted ? { kind: 'aborted' } : { kind: 'threw', error };
  }
}

/**
 * One attempt under a deadline. At the deadline, or when the caller cancels, the attempt is
 * aborted and abandoned at once: one that ignores its abort cannot hold the call.
 */
function withinDeadline<T>(
  attempt: (abort: AttemptAbort) => Promise<T>,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  stall: Deadline | undefined,
): Promise<AttemptEnd<T>> {
  const abort = new AttemptAbort();
  return new Promise<AttemptEnd<T>>((resolve) => {
    let settled = false;
    let deadline: Deadline | undefined;
    const finish = (end: AttemptEnd<T>): void => {
      if (settled) return;
      settled = true;
      deadline?.cancel();
      stall?.cancel();
      if (outer) unwatch(outer, onOuterAbort);
      resolve(end);
    };
    const onOuterAbort = (): void => {
      finish({ kind: 'aborted' });
      abort.abort(outer?.reason);
    };
    // A non-positive or non-finite timeout means none.
    deadline = deadlines.add(Math.min(timeoutMs, 2_147_483_647), () => {
      finish({ kind: 'timeout' });
      abort.abort(new Error(`timed out after ${timeoutMs} ms`));
    });
    if (outer) watch(outer, onOuterAbort);
    let running: Promise<T>;
    try {
      running = attempt(abort);
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

/**
 * The cancellation of one attempt, cheaper than an AbortController (whose creation and listeners
 * cost more than a whole request's own work against a local server). `signal` makes a real
 * AbortSignal on first read, for code that needs one. The HTTP transport hands the object itself
 * to undici, which takes any emitter of `abort` with `aborted` and `reason`.
 */
export class AttemptAbort {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;
  private controller: AbortController | undefined;
  /** A caller's signal checked when `signal` is read (the attempt of a provider that cannot hang). */
  private readonly outer: AbortSignal | undefined;

  constructor(outer?: AbortSignal) {
    this.outer = outer;
  }

  /** An AbortSignal that aborts with this attempt, made when first read. */
  get signal(): AbortSignal {
    if (this.outer?.aborted && !this.aborted) this.abort(this.outer.reason);
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the attempt: its signal and every `abort` listener. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Emitter interface (undici's): `listener` runs once when the attempt aborts. */
  on(_event: 'abort', listener: () => void): this {
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  addListener(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): this {
    const listeners = this.listeners;
    if (listeners) {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
    }
    return this;
  }

  off(event: 'abort', listener: () => void): this {
    return this.removeListener(event, listener);
  }
}

/**
 * Attempts waiting on a caller's signal. One listener per signal runs them all: an EventTarget
 * listener added and removed per attempt cost more than the rest of the attempt loop.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` when `signal` aborts (not if it already has), until `unwatch`: one listener on
 * the signal serves every watcher, so watching costs a set entry, not an EventTarget listener.
 */
export function watch(signal: AbortSignal, onAbort: () => void): void {
  // An already aborted signal fires no more events: as with addEventListener, nothing is called.
  if (signal.aborted) return;
  let set = watchers.get(signal);
  if (set === undefined) {
    const created = new Set<() => void>();
    set = created;
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const fn of [...created]) fn();
      },
      { once: true },
    );
  }
  set.add(onAbort);
}

/** Stops watching (see `watch`). */
export function unwatch(signal: AbortSignal, onAbort: () => void): void {
  watchers.get(signal)?.delete(onAbort);
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
