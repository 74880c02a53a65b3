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
}

const STDERR_TAIL = 2000;
const CLOSE_GRACE_MS = 2000;

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
      return;
    }
    if (typeof message.id !== 'number') return;
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
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
    const orphans = [...this.pending.values()];
    this.pending.clear();
    const tail = this.stderrTail.trim();
    if (!this.ready) {
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
    // Requests are served in order, so the oldest unanswered one was running when the worker died.
    const [running] = orphans;
    if (running) {
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
export function callPython(request: PythonRequest): Promise<PythonReply> {
  return new Promise((resolve, reject) => dispatch({ request, resolve, reject, crashes: 0 }));
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
