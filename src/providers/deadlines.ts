/**
 * One Node timer for many deadlines. Every attempt of a provider call that can hang sets two: the
 * end of its time limit and the moment its limiter slot counts as stalled; a Node timer each (plus
 * `unref`) was a native call and a large object per deadline, paid by every request.
 *
 * Deadlines of the same duration end in the order they were set, so each duration keeps a
 * first-in-first-out lane, and one Node timer is armed for the earliest deadline of all lanes. A
 * cancelled deadline is only marked: it is dropped when it reaches the front of its lane, or when
 * cancelled ones are most of the lane. The Node timer keeps the process alive only while a
 * deadline that asks for it (`keepAlive`) is pending, as a referenced Node timer would.
 */
import { performance } from 'node:perf_hooks';

/** setTimeout fires at once beyond this many ms. */
const MAX_TIMER_MS = 2_147_483_647;

/** A pending deadline: `cancel` it when what it guards ends first. */
export class Deadline {
  /** What runs at the deadline; cleared once it ran or was cancelled. */
  fire: (() => void) | undefined;
  /** Still in its lane (not yet taken out to fire). */
  queued = true;
  constructor(
    readonly at: number,
    fire: () => void,
    private readonly owner: DeadlineTimer,
    readonly lane: Lane,
    readonly keepAlive: boolean,
  ) {
    this.fire = fire;
  }

  /** The deadline will not fire (a no-op once it fired or was cancelled). */
  cancel(): void {
    if (this.fire === undefined) return;
    this.fire = undefined;
    this.owner.cancelled(this);
  }
}

/** The deadlines of one duration, in the order they end. */
class Lane {
  constructor(readonly ms: number) {}
  items: Deadline[] = [];
  head = 0;
  /** Cancelled deadlines still in `items` at or after `head`. */
  dead = 0;

  /** The first deadline still pending, dropping cancelled ones before it. */
  front(): Deadline | undefined {
    const items = this.items;
    while (this.head < items.length && items[this.head].fire === undefined) {
      this.head++;
      this.dead--;
    }
    if (this.head === items.length) {
      this.items = [];
      this.head = 0;
      this.dead = 0;
      return undefined;
    }
    if (this.head >= 1024 && this.head * 2 >= items.length) {
      this.items = items.slice(this.head);
      this.head = 0;
    }
    return this.items[this.head];
  }

  /** Drops cancelled deadlines when they are most of the lane (a long timeout, many quick answers). */
  compact(): void {
    if (this.dead < 256 || this.dead * 2 < this.items.length - this.head) return;
    const live: Deadline[] = [];
    for (let i = this.head; i < this.items.length; i++)
      if (this.items[i].fire !== undefined) live.push(this.items[i]);
    this.items = live;
    this.head = 0;
    this.dead = 0;
  }
}

/** Many deadlines on one Node timer (see the file's comment). */
export class DeadlineTimer {
  private readonly lanes = new Map<number, Lane>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Pending deadlines that keep the process alive. */
  private holding = 0;

  /** Deadlines kept in the lanes, cancelled ones not yet dropped included, for tests. */
  get held(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.items.length - lane.head;
    return n;
  }

  /** Pending deadlines (cancelled ones excluded), for tests. */
  get pending(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.items.length - lane.head - lane.dead;
    return n;
  }

  /**
   * Calls `fire` in `ms` milliseconds unless cancelled first. A non-positive or non-finite `ms`
   * sets no deadline (`undefined`). `keepAlive: false` lets the process exit while it is pending.
   */
  add(ms: number, fire: () => void, keepAlive = true): Deadline | undefined {
    if (!(ms > 0) || !Number.isFinite(ms)) return undefined;
    let lane = this.lanes.get(ms);
    if (lane === undefined) {
      lane = new Lane(ms);
      this.lanes.set(ms, lane);
    }
    const now = performance.now();
    const deadline = new Deadline(now + ms, fire, this, lane, keepAlive);
    lane.items.push(deadline);
    if (keepAlive && this.holding++ === 0) this.timer?.ref();
    if (deadline.at < this.timerAt) this.arm(deadline.at, now);
    return deadline;
  }

  /** Called by Deadline.cancel. */
  cancelled(deadline: Deadline): void {
    if (deadline.queued) {
      const lane = deadline.lane;
      lane.dead++;
      // A lane with nothing pending is dropped now: a duration set once (a job's time left of the
      // run) would otherwise keep its lane until the Node timer next fires, perhaps the run's end.
      // A few empty lanes stay for reuse (one timeout for every attempt: the common case).
      if (lane.dead === lane.items.length - lane.head) {
        lane.items = [];
        lane.head = 0;
        lane.dead = 0;
        if (this.lanes.size > 16 && this.lanes.get(lane.ms) === lane) this.lanes.delete(lane.ms);
      } else lane.compact();
    }
    if (deadline.keepAlive && --this.holding === 0) this.timer?.unref();
  }

  private arm(at: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.onTimer, Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(at - now))));
    if (this.holding === 0) this.timer.unref();
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    // Node's timers count whole milliseconds from the loop's cached clock: a timer may wake a
    // fraction of a millisecond before the deadline it was armed for, which is then due.
    const due = now + 1;
    const ready: Deadline[] = [];
    for (const [ms, lane] of this.lanes) {
      let front = lane.front();
      while (front !== undefined && front.at <= due) {
        lane.head++;
        front.queued = false;
        ready.push(front);
        front = lane.front();
      }
      if (front === undefined) this.lanes.delete(ms);
    }
    // Each is checked when its turn comes: an earlier one may have cancelled it (an attempt that
    // timed out cancels its stall mark), as with Node timers cleared before their turn.
    for (const deadline of ready) {
      const fire = deadline.fire;
      if (fire === undefined) continue;
      deadline.fire = undefined;
      if (deadline.keepAlive) this.holding--;
      try {
        fire();
      } catch (err) {
        // As from a Node timer: an uncaught exception, without losing the deadlines after it.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
    let next = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.values()) {
      const front = lane.front();
      if (front !== undefined && front.at < next) next = front.at;
    }
    if (next < this.timerAt) this.arm(next, performance.now());
  };
}

/** The process's deadline timer: the attempts of every provider call share it. */
export const deadlines = new DeadlineTimer();
