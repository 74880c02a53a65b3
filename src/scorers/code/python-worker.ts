// One long-lived Python process runs every python assertion of a run, so thousands of assertions
// cost one interpreter start. Requests carry ids; the worker answers in order, one at a time.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PYTHON_WORKER_SOURCE } from './python-worker-source.js';

/** What the worker is asked to run. `args` must be JSON-serialisable. */
export type PythonRequest =
  | { kind: 'inline'; code: string; fn: 'main'; header: number; args: unknown[] }
  | { kind: 'file'; path: string; fn: string; args: unknown[] };

/** The worker's answer: the function's result, or the error it raised (user code's fault). */
export type PythonReply = { ok: true; result: unknown } | { ok: false; error: string; where?: string };

/** Python could not be started at all; no python assertion can be scored. */
export class PythonUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonUnavailableError';
  }
}

interface Pending {
  request: PythonRequest;
  resolve: (reply: PythonReply) => void;
  reject: (err: Error) => void;
  /** Workers that died while this request was the one being served. */
  crashes: number;
  /** Why the last of those workers died. */
  error?: string;
  /** How long the request may run once the worker starts on it (ms). */
  timeLimitMs: number;
}

const STDERR_TAIL = 2000;
const CLOSE_GRACE_MS = 2000;
/** How long one Python call may run when nothing else says (`ASSAY_PYTHON_TIMEOUT_MS` overrides). */
export const DEFAULT_PYTHON_TIME_LIMIT_MS = 60_000;
let defaultTimeLimitMs: number | undefined;

/**
 * Sets how long a Python call may run before its worker is killed and the call fails (the engine
 * sets the run's job time limit here); undefined restores the default.
 */
export function setPythonTimeLimit(ms: number | undefined): void {
  defaultTimeLimitMs = ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** The time limit of a call that names none: the one set, else `ASSAY_PYTHON_TIMEOUT_MS`, else 60 s. */
export function pythonTimeLimit(env: NodeJS.ProcessEnv = process.env): number {
  if (defaultTimeLimitMs !== undefined) return defaultTimeLimitMs;
  const fromEnv = Number(env.ASSAY_PYTHON_TIMEOUT_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_PYTHON_TIME_LIMIT_MS;
}

/** The error of a call that ran past its time limit. */
export function pythonTimeLimitError(ms: number): string {
  const shown = ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
  return `timed out: the Python code did not return within ${shown} (the time limit of a Python call); its worker was stopped`;
}

/** The interpreter: `ASSAY_PYTHON`, else promptfoo's `PROMPTFOO_PYTHON`, else `python3`. */
export function pythonExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env.ASSAY_PYTHON || env.PROMPTFOO_PYTHON || 'python3';
}

/** One Python process and the requests it has not answered yet. */
class PythonWorker {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ready = false;
  private dead = false;
  private closing = false;
  private stderrTail = '';
  private spawnError?: Error;
  /** The request being served and the timer of its time limit. */
  private timed?: { entry: Pending; timer: NodeJS.Timeout };
  /** The worker was killed on purpose (a time limit, a hard stop): no request caused its death. */
  private killed = false;
  readonly exited: Promise<void>;

  constructor(
    readonly python: string,
    private readonly onDeath: (worker: PythonWorker, orphans: Pending[]) => void,
  ) {
    this.child = spawn(python, ['-u', '-c', PYTHON_WORKER_SOURCE], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolveExit) => {
      this.child.once('close', (code, signal) => {
        this.die(code, signal);
        resolveExit();
      });
    });
    this.child.once('error', (err) => {
      // A failed spawn emits 'error' and then 'close'; remember why for the message.
      this.spawnError = err;
    });
    // A worker killed mid-write makes stdin emit EPIPE; the 'close' handler deals with the death.
    this.child.stdin.on('error', () => {});
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    const lines = createInterface({ input: this.child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => this.onLine(line));
    this.setKeepAlive(false);
  }

  /** Sends a request; the entry is settled when the worker answers (or dies). */
  send(entry: Pending): void {
    const id = this.nextId++;
    let line: string;
    try {
      line = JSON.stringify({ id, ...entry.request });
    } catch (err) {
      // A BigInt or a cycle in the vars: nothing was sent, so nothing will answer.
      entry.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.pending.set(id, entry);
    this.setKeepAlive(true);
    this.child.stdin.write(`${line}\n`);
    this.armTimer();
  }

  /**
   * Starts the time limit of the request being served (the oldest unanswered one: the worker
   * answers in order), so a request's wait in the queue does not count against it.
   */
  private armTimer(): void {
    const [head] = this.pending.values();
    if (this.timed?.entry === head) return;
    if (this.timed) clearTimeout(this.timed.timer);
    this.timed = undefined;
    // The interpreter's start does not count against the first request.
    if (!head || this.dead || !this.ready) return;
    const ms = head.timeLimitMs;
    const timer = setTimeout(() => this.timeOut(head), Math.min(ms, 2_147_483_647));
    timer.unref();
    this.timed = { entry: head, timer };
  }

  /** The request being served ran past its limit: it fails, and the worker is killed (the rest go to a new one). */
  private timeOut(entry: Pending): void {
    for (const [id, e] of this.pending) if (e === entry) this.pending.delete(id);
    this.timed = undefined;
    entry.resolve({ ok: false, error: pythonTimeLimitError(entry.timeLimitMs) });
    this.kill();
  }

  /** Kills the process at once; requests not answered go to a new worker (or fail, if `reason` is given). */
  kill(reason?: string): void {
    this.killed = true;
    if (reason !== undefined) {
      for (const e of this.pending.values()) e.resolve({ ok: false, error: reason });
      this.pending.clear();
    }
    if (this.timed) clearTimeout(this.timed.timer);
    this.timed = undefined;
    this.child.kill('SIGKILL');
  }

  /** Whether the worker can take requests (not dead, not being closed). */
  get alive(): boolean {
    return !this.dead && !this.closing;
  }

  /** The worker's process id (undefined when the spawn failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Closes stdin so the worker exits on its own; kills it if it does not within a grace period. */
  async close(): Promise<void> {
    this.closing = true;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /**
   * An idle worker must not keep Node alive: if the engine never closes it, assay still exits,
   * its end of the pipe closes, and the worker reads EOF and exits too.
   */
  private setKeepAlive(on: boolean): void {
    // The pipes are sockets at run time, though typed as plain streams.
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as {
      ref?: () => void;
      unref?: () => void;
    }[];
    for (const h of handles) {
      if (on) h.ref?.();
      else h.unref?.();
    }
  }

  private onLine(line: string): void {
    let message: {
      id?: unknown;
      ready?: unknown;
      ok?: unknown;
      result?: unknown;
      error?: unknown;
      where?: unknown;
    };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.ready === true) {
      this.ready = true;
      this.armTimer();
      return;
    }
    if (typeof message.id !== 'number') return;
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    this.armTimer();
    if (this.pending.size === 0) this.setKeepAlive(false);
    if (message.ok === true) entry.resolve({ ok: true, result: message.result });
    else {
      const reply: PythonReply = { ok: false, error: String(message.error ?? 'unknown error') };
      if (typeof message.where === 'string') reply.where = message.where;
      entry.resolve(reply);
    }
  }

  private die(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.dead) return;
    this.dead = true;
    if (this.timed) clearTimeout(this.timed.timer);
    this.timed = undefined;
    const orphans = [...this.pending.values()];
    this.pending.clear();
    const tail = this.stderrTail.trim();
    if (!this.ready && !this.killed) {
      const why = this.spawnError
        ? (this.spawnError as NodeJS.ErrnoException).code === 'ENOENT'
          ? `"${this.python}" was not found`
          : `"${this.python}" could not be started (${this.spawnError.message})`
        : `"${this.python}" exited before it was ready (${signal ?? `exit code ${code}`})${tail ? `: ${lastLines(tail)}` : ''}`;
      const error = new PythonUnavailableError(
        `Python 3 is needed to run python assertions, but ${why}. Install Python 3, or set ASSAY_PYTHON (or PROMPTFOO_PYTHON) to its path.`,
      );
      for (const orphan of orphans) orphan.reject(error);
      this.onDeath(this, []);
      return;
    }
    if (this.closing) {
      for (const orphan of orphans)
        orphan.reject(new Error('the Python worker was closed before it answered'));
      this.onDeath(this, []);
      return;
    }
    // Requests are served in order, so the oldest unanswered one was running when the worker died
    // (unless assay killed it, for a time limit or a stop: then no request is to blame).
    const [running] = orphans;
    if (running && !this.killed) {
      running.crashes++;
      running.error = `the Python worker died while running this assertion (${signal ?? `exit code ${code}`})${tail ? `: ${lastLines(tail)}` : ''}`;
    }
    this.onDeath(this, orphans);
  }
}

function lastLines(text: string, n = 3): string {
  return text.split('\n').slice(-n).join(' | ');
}

let current: PythonWorker | undefined;
const closing = new Set<Promise<void>>();

function handleDeath(worker: PythonWorker, orphans: Pending[]): void {
  if (current === worker) current = undefined;
  for (const orphan of orphans) {
    // The request that was running gets one more chance (the worker may have been killed from
    // outside); if it brings a second worker down too, it is the culprit and fails.
    if (orphan.crashes >= 2 && orphan.error) orphan.resolve({ ok: false, error: orphan.error });
    else dispatch(orphan);
  }
}

function dispatch(entry: Pending): void {
  if (!current?.alive) current = new PythonWorker(pythonExecutable(), handleDeath);
  current.send(entry);
}

/**
 * Runs one request in the shared worker, starting it on first use and again after it died.
 * Rejects with PythonUnavailableError when Python cannot be started.
 */
export function callPython(
  request: PythonRequest,
  options: { timeLimitMs?: number } = {},
): Promise<PythonReply> {
  const timeLimitMs =
    options.timeLimitMs !== undefined && options.timeLimitMs > 0 ? options.timeLimitMs : pythonTimeLimit();
  return new Promise((resolve, reject) => dispatch({ request, resolve, reject, crashes: 0, timeLimitMs }));
}

/**
 * Kills the Python worker at once (a hard stop): every call it has not answered ends with an
 * error, so nothing waits on Python any more. A later call starts a new worker.
 */
export function killPythonWorker(
  reason = 'stopped: the run was stopped before the Python code returned',
): void {
  const worker = current;
  current = undefined;
  if (worker?.alive) worker.kill(reason);
}

/**
 * Stops the Python worker, if one is running, and waits for it to exit. The engine calls this
 * when a run ends; a later python assertion starts a new worker.
 */
export async function closePythonWorker(): Promise<void> {
  const worker = current;
  current = undefined;
  if (worker) {
    const done = worker.close();
    closing.add(done);
    await done;
    closing.delete(done);
  }
  await Promise.all(closing);
}

/** The running worker's process id, or undefined (for tests and diagnostics). */
export function pythonWorkerPid(): number | undefined {
  return current?.alive ? current.pid : undefined;
}
