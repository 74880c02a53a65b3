/**
 * Adaptive concurrency for one endpoint (AIMD): the number of requests in flight is halved when
 * the server answers 429, at most once per cool-down, and grows back by one after each window of
 * successes the size of the current limit. A rate-limited server thus sees fewer requests instead
 * of a storm of retries, and throughput recovers when it stops pushing back.
 */
export class AdaptiveLimiter {
  private limitValue: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private successes = 0;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** How often the limit was cut, and its lowest value (for reports). */
  readonly stats = { rateLimited: 0, decreases: 0, lowest: 0, stalled: 0 };
  /** Durations of recent attempts that answered (a ring), for what "stalled" means here. */
  private readonly recent: number[] = [];
  private recentNext = 0;
  /** stallAfterMs's answer, recomputed every few observations rather than per attempt. */
  private stallCache: number | undefined;
  private sinceStallCache = 0;
  /** The shortest time after which a slot counts as stalled, whatever the latencies. */
  stallFloorMs = STALL_FLOOR_MS;

  constructor(
    private max: number,
    private readonly coolDownMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limitValue = Math.max(1, max);
    this.stats.lowest = this.limitValue;
  }

  /** The current limit. */
  get limit(): number {
    return this.limitValue;
  }

  /** Raises the ceiling (a later run may ask for more concurrency than the first). */
  grow(max: number): void {
    if (max > this.max) {
      this.limitValue += max - this.max;
      this.max = max;
      this.drain();
    }
  }

  /** Records how long an attempt that answered took. */
  observe(ms: number): void {
    if (this.recent.length < RECENT) this.recent.push(ms);
    else this.recent[this.recentNext] = ms;
    this.recentNext = (this.recentNext + 1) % RECENT;
    // The median moves slowly: recompute it early on, then every 16 answers.
    if (this.recent.length <= 16 || ++this.sinceStallCache >= 16) {
      this.stallCache = undefined;
      this.sinceStallCache = 0;
    }
  }

  /**
   * How long an attempt may hold its slot before it counts as stalled (a hung request): ten times
   * the median of recent answers, at least `stallFloorMs`; before any answer, the floor times ten.
   * A stalled attempt gives its slot back and carries on, so a few hung requests (they end at their
   * deadline) cannot hold the capacity healthy ones need, even after 429s shrank the limit.
   */
  stallAfterMs(): number {
    if (this.recent.length === 0) return this.stallFloorMs * 10;
    if (this.stallCache === undefined) {
      const sorted = [...this.recent].sort((a, b) => a - b);
      this.stallCache = 10 * sorted[sorted.length >> 1];
    }
    return Math.max(this.stallFloorMs, this.stallCache);
  }

  /** Gives back the slot of a stalled attempt early (see stallAfterMs); its end then releases nothing. */
  releaseStalled(): void {
    this.stats.stalled++;
    this.inFlight--;
    this.drain();
  }

  /** Takes a slot: `undefined` when one is free now (no promise on the fast path), else a promise. */
  acquire(): Promise<void> | undefined {
    if (this.inFlight < this.limitValue) {
      this.inFlight++;
      return undefined;
    }
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.inFlight++;
        resolve();
      });
    });
  }

  /** Gives back a slot no request used (its caller cancelled while it waited): no success counted. */
  unused(): void {
    this.inFlight--;
    this.drain();
  }

  /** Gives the slot back, saying whether the server rate-limited this request. */
  release(rateLimited: boolean): void {
    this.inFlight--;
    if (rateLimited) {
      this.stats.rateLimited++;
      const t = this.now();
      if (t - this.lastDecrease >= this.coolDownMs && this.limitValue > 1) {
        this.limitValue = Math.max(1, Math.floor(this.limitValue / 2));
        this.lastDecrease = t;
        this.successes = 0;
        this.stats.decreases++;
        this.stats.lowest = Math.min(this.stats.lowest, this.limitValue);
      }
    } else if (this.limitValue < this.max && ++this.successes >= this.limitValue) {
      this.limitValue++;
      this.successes = 0;
    }
    this.drain();
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.inFlight < this.limitValue) this.waiting.shift()!();
  }
}

const limiters = new Map<string, AdaptiveLimiter>();

/**
 * The adaptive limiter of an endpoint (an HTTP origin, or a provider's own identity), shared by
 * every provider that calls it, so a rate limit one of them meets slows them all.
 */
/** Recent answers remembered for the stall rule. */
const RECENT = 64;
/** The stall rule's floor: a slot is never taken back sooner. */
const STALL_FLOOR_MS = 2000;

export function getLimiter(key: string, maxConcurrency: number): AdaptiveLimiter {
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new AdaptiveLimiter(maxConcurrency);
    limiters.set(key, limiter);
  } else limiter.grow(maxConcurrency);
  return limiter;
}

/** Forgets every endpoint's limiter (a later call starts again at full concurrency). */
export function clearLimiters(): void {
  limiters.clear();
}
