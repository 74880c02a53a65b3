// A small pool of long-lived Python processes runs every piece of Python user code of a run
// (python assertions, Python providers, transforms, LVE checkers), so thousands of calls cost a few
// interpreter starts. Each worker serves one call at a time; a call waits in one queue until a
// worker is free, and a new worker starts only when every worker is busy (up to the pool's size).
// So a call that hangs holds one worker until its time limit or its caller gives up (then that
// worker is killed and replaced); the other calls go on in the other workers.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { killGroupAtExit, signalGroup } from '../providers/processes.js';
import { firstSet, interpreterVariables } from './interpreters.js';
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
  /** The request as JSON (made when the call is made, so a value JSON cannot carry fails at once). */
  payload: string;
  resolve: (reply: PythonReply) => void;
  reject: (err: Error) => void;
  /** Workers that died while this request was the one being served. */
  crashes: number;
  /** Why the last of those workers died. */
  error?: string;
  /** How long the request may run once a worker starts on it (ms). */
  timeLimitMs: number;
  /** The worker it was last given to. */
  worker?: PythonWorker;
}

const STDERR_TAIL = 2000;
const CLOSE_GRACE_MS = 2000;
/**
 * How long the pipes of an exited worker may stay open (held by a process user code started in a
 * session of its own) before assay stops reading them.
 */
const PIPE_GRACE_MS = 500;
/** How long one Python call may run when nothing else says (`ASSAY_PYTHON_TIMEOUT_MS` overrides). */
export const DEFAULT_PYTHON_TIME_LIMIT_MS = 60_000;
/** How many Python workers may run at once when nothing else says (`ASSAY_PYTHON_WORKERS` overrides). */
export const DEFAULT_PYTHON_WORKERS = 4;
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

/** The pool's size: `ASSAY_PYTHON_WORKERS` (a whole number from 1), else 4. */
export function pythonPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env.ASSAY_PYTHON_WORKERS);
  return Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : DEFAULT_PYTHON_WORKERS;
}

/** The error of a call that ran past its time limit. */
export function pythonTimeLimitError(ms: number): string {
  const shown = ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
  return `timed out: the Python code did not return within ${shown} (the time limit of a Python call); its worker was stopped`;
}

/** The error of a call whose caller stopped waiting (its own time limit, a stop). */
const CANCELLED =
  'cancelled: the caller stopped waiting before the Python code returned; its worker was stopped';

/**
 * The interpreter: `ASSAY_PYTHON`, else the first of the formats' variables set (promptfoo's
 * `PROMPTFOO_PYTHON`; the format registry supplies them), else `python3`.
 */
export function pythonExecutable(
  env: NodeJS.ProcessEnv = process.env,
  formatVariables: string[] = interpreterVariables().python,
): string {
  return env.ASSAY_PYTHON || firstSet(env, formatVariables) || 'python3';
}

/** The variables that pick the interpreter, for messages: `ASSAY_PYTHON (or PROMPTFOO_PYTHON)`. */
export function pythonVariablesText(formatVariables: string[] = interpreterVariables().python): string {
  return formatVariables.length > 0 ? `ASSAY_PYTHON (or ${formatVariables.join(', or ')})` : 'ASSAY_PYTHON';
}

interface PoolEvents {
  /** The worker answered its call and can take another. */
  idle(worker: PythonWorker): void;
  /**
   * The worker died. `orphan` is the call it was serving (to run again or fail); `unavailable`
   * says that Python could not be started at all.
   */
  death(worker: PythonWorker, orphan: Pending | undefined, unavailable?: PythonUnavailableError): void;
}

/** One Python process, serving one call at a time. */
class PythonWorker {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private ready = false;
  private dead = false;
  private closing = false;
  private stderrTail = '';
  private spawnError?: Error;
  /** The call being served, its id, and the timer of its time limit (armed once the worker is ready). */
  private serving?: { id: number; entry: Pending; timer?: NodeJS.Timeout };
  /** The worker was killed on purpose (a time limit, an abandoned call, a hard stop): no call caused its death. */
  private killed = false;
  readonly exited: Promise<void>;

  constructor(
    readonly python: string,
    private readonly events: PoolEvents,
  ) {
    // The worker leads a process group of its own, so that whatever user code starts (a
    // subprocess, a daemon) is killed with it: a leftover child holding the worker's pipes would
    // otherwise keep the worker from ever counting as ended.
    this.child = spawn(python, ['-u', '-c', PYTHON_WORKER_SOURCE], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const pid = this.child.pid;
    const release = pid !== undefined ? killGroupAtExit(pid) : () => {};
    this.child.once('exit', () => {
      release();
      if (pid === undefined) return;
      // What user code left running in the worker's group goes with it.
      signalGroup(pid, 'SIGKILL');
      // A process that left the group (setsid) may still hold the pipes: stop waiting for it.
      const timer = setTimeout(() => {
        this.child.stdout.destroy();
        this.child.stderr.destroy();
        this.child.stdin.destroy();
      }, PIPE_GRACE_MS);
      this.child.once('close', () => clearTimeout(timer));
    });
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

  /** Whether the worker can take a call now. */
  get idle(): boolean {
    return this.alive && this.serving === undefined;
  }

  /** Whether the worker can take calls (not dead, not killed, not being closed). */
  get alive(): boolean {
    return !this.dead && !this.closing && !this.killed;
  }

  /** The worker's process id (undefined when the spawn failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Starts a call; the entry is settled when the worker answers (or dies, or the call is abandoned). */
  serve(entry: Pending): void {
    const id = this.nextId++;
    this.serving = { id, entry };
    this.setKeepAlive(true);
    // The payload is a JSON object: the id goes in front of its first member.
    this.child.stdin.write(`{"id":${id},${entry.payload.slice(1)}\n`);
    this.armTimer();
  }

  /** Starts the time limit of the call being served; the interpreter's start does not count against it. */
  private armTimer(): void {
    const s = this.serving;
    if (!s || s.timer || this.dead || !this.ready) return;
    const entry = s.entry;
    s.timer = setTimeout(
      () => this.abandon(entry, pythonTimeLimitError(entry.timeLimitMs)),
      Math.min(entry.timeLimitMs, 2_147_483_647),
    );
    s.timer.unref();
  }

  private takeServing(): Pending | undefined {
    const s = this.serving;
    this.serving = undefined;
    if (s?.timer) clearTimeout(s.timer);
    return s?.entry;
  }

  /**
   * The call being served is given up (its time limit passed, or its caller stopped waiting): it
   * ends with `reason`, and the worker is killed, since code stuck in Python cannot be interrupted
   * otherwise. The pool starts another worker when one is needed.
   */
  abandon(entry: Pending, reason: string): void {
    if (this.serving?.entry !== entry) return;
    this.takeServing();
    entry.resolve({ ok: false, error: reason });
    this.kill();
  }

  /** Kills the process at once; the call being served runs again elsewhere (or fails, if `reason` is given). */
  kill(reason?: string): void {
    this.killed = true;
    if (reason !== undefined) this.takeServing()?.resolve({ ok: false, error: reason });
    else if (this.serving?.timer) clearTimeout(this.serving.timer);
    // The whole group: a subprocess the hung call is waiting on dies with it.
    if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGKILL');
    else this.child.kill('SIGKILL');
  }

  /** Closes stdin so the worker exits on its own; kills it if it does not within a grace period. */
  async close(): Promise<void> {
    this.closing = true;
    this.child.stdin.end();
    const timer = setTimeout(() => {
      if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGKILL');
      else this.child.kill('SIGKILL');
    }, CLOSE_GRACE_MS);
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
    if (this.serving === undefined || message.id !== this.serving.id) return;
    const entry = this.takeServing() as Pending;
    this.setKeepAlive(false);
    if (message.ok === true) entry.resolve({ ok: true, result: message.result });
    else {
      const reply: PythonReply = { ok: false, error: String(message.error ?? 'unknown error') };
      if (typeof message.where === 'string') reply.where = message.where;
      entry.resolve(reply);
    }
    if (this.alive) this.events.idle(this);
  }

  private die(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.dead) return;
    this.dead = true;
    const entry = this.takeServing();
    const tail = this.stderrTail.trim();
    if (!this.ready && !this.killed && !this.closing) {
      const why = this.spawnError
        ? (this.spawnError as NodeJS.ErrnoException).code === 'ENOENT'
          ? `"${this.python}" was not found`
          : `"${this.python}" could not be started (${this.spawnError.message})`
        : `"${this.python}" exited before it was ready (${signal ?? `exit code ${code}`})${tail ? `: ${lastLines(tail)}` : ''}`;
      const error = new PythonUnavailableError(
        `Python 3 is needed to run python assertions, but ${why}. Install Python 3, or set ${pythonVariablesText()} to its path.`,
      );
      this.events.death(this, entry, error);
      return;
    }
    if (this.closing) {
      entry?.reject(new Error('the Python worker was closed before it answered'));
      this.events.death(this, undefined);
      return;
    }
    // Killed on purpose (a time limit, a stop): the call it was serving is not to blame.
    if (entry && !this.killed) {
      entry.crashes++;
      entry.error = `the Python worker died while running this assertion (${signal ?? `exit code ${code}`})${tail ? `: ${lastLines(tail)}` : ''}`;
    }
    this.events.death(this, entry);
  }
}

function lastLines(text: string, n = 3): string {
  return text.split('\n').slice(-n).join(' | ');
}

/** The pool's workers (alive or on their way out) and the calls waiting for a free one. */
const workers = new Set<PythonWorker>();
const queue: Pending[] = [];
const closing = new Set<Promise<void>>();

const poolEvents: PoolEvents = {
  idle: () => pump(),
  death(worker, orphan, unavailable) {
    workers.delete(worker);
    if (unavailable) {
      // Python cannot start: no waiting call can be served either.
      orphan?.reject(unavailable);
      for (const waiting of queue.splice(0)) waiting.reject(unavailable);
      return;
    }
    if (orphan) {
      // The call that was running gets one more chance (the worker may have been killed from
      // outside); if it brings a second worker down too, it is the culprit and fails.
      if (orphan.crashes >= 2 && orphan.error) orphan.resolve({ ok: false, error: orphan.error });
      else queue.unshift(orphan);
    }
    pump();
  },
};

/** Gives waiting calls to free workers, starting workers while every one is busy and the pool is not full. */
function pump(): void {
  for (const w of workers) if (!w.alive) workers.delete(w);
  while (queue.length > 0) {
    let worker: PythonWorker | undefined;
    for (const w of workers) {
      if (w.idle) {
        worker = w;
        break;
      }
    }
    if (!worker) {
      if (workers.size >= pythonPoolSize()) return;
      worker = new PythonWorker(pythonExecutable(), poolEvents);
      workers.add(worker);
    }
    const entry = queue.shift() as Pending;
    entry.worker = worker;
    worker.serve(entry);
  }
}

/**
 * Runs one request in the pool, starting a worker when none is free (and the pool is not full).
 * `timeLimitMs` bounds the call once a worker runs it; when `signal` aborts, a waiting call is
 * dropped and a running one's worker is killed, so a caller that gave up frees its worker. Rejects
 * with PythonUnavailableError when Python cannot be started.
 */
export function callPython(
  request: PythonRequest,
  options: { timeLimitMs?: number; signal?: AbortSignal } = {},
): Promise<PythonReply> {
  const timeLimitMs =
    options.timeLimitMs !== undefined && options.timeLimitMs > 0 ? options.timeLimitMs : pythonTimeLimit();
  const { signal } = options;
  return new Promise((resolve, reject) => {
    let payload: string;
    try {
      payload = JSON.stringify(request);
    } catch (err) {
      // A BigInt or a cycle in the vars: nothing can be sent.
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (signal?.aborted) {
      resolve({ ok: false, error: CANCELLED });
      return;
    }
    const onAbort = (): void => {
      const waiting = queue.indexOf(entry);
      if (waiting >= 0) {
        queue.splice(waiting, 1);
        entry.resolve({ ok: false, error: CANCELLED });
      } else entry.worker?.abandon(entry, CANCELLED);
    };
    const entry: Pending = {
      payload,
      crashes: 0,
      timeLimitMs,
      resolve: (reply) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(reply);
      },
      reject: (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(entry);
    pump();
  });
}

/**
 * Kills every Python worker at once (a hard stop): every call not answered, running or waiting,
 * ends with an error, so nothing waits on Python any more. A later call starts a new worker.
 */
export function killPythonWorker(
  reason = 'stopped: the run was stopped before the Python code returned',
): void {
  for (const waiting of queue.splice(0)) waiting.resolve({ ok: false, error: reason });
  for (const worker of [...workers]) {
    workers.delete(worker);
    if (worker.alive) worker.kill(reason);
  }
}

/**
 * Stops the Python workers, if any run, and waits for them to exit. The engine calls this when a
 * run ends; a later Python call starts a new worker.
 */
export async function closePythonWorker(): Promise<void> {
  for (const waiting of queue.splice(0))
    waiting.reject(new Error('the Python worker was closed before it answered'));
  const done = [...workers].map((worker) => worker.close());
  workers.clear();
  for (const d of done) closing.add(d);
  await Promise.all(done);
  for (const d of done) closing.delete(d);
  await Promise.all(closing);
}

/** The process ids of the running workers, oldest first (for tests and diagnostics). */
export function pythonWorkerPids(): number[] {
  return [...workers].filter((w) => w.alive && w.pid !== undefined).map((w) => w.pid as number);
}

/** The oldest running worker's process id, or undefined (for tests and diagnostics). */
export function pythonWorkerPid(): number | undefined {
  return pythonWorkerPids()[0];
}
