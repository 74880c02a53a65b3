/**
 * Commands assay runs for the user (the `exec:` provider): each runs in a process group of its own,
 * so that when its caller gives up on it (the request's or the job's time limit, the end of the
 * run) the command and everything it started are stopped — SIGTERM to the group, then SIGKILL
 * after a grace — and assay never waits for a command it gave up on. Groups still running when
 * assay exits are killed then.
 */
import { spawn } from 'node:child_process';

/** How long a group given SIGTERM has to exit before it gets SIGKILL. */
export const KILL_GRACE_MS = 1000;
/** How long the pipes of an exited command may stay open (held by a process that left its group). */
const PIPE_GRACE_MS = 500;

/** How a command ended. */
export type CommandEnd =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { kind: 'not-started'; error: NodeJS.ErrnoException }
  | { kind: 'too-much-output'; stderr: string }
  | { kind: 'abandoned' };

/** The process groups started and not yet ended (their leaders' pids). */
const groups = new Set<number>();
let exitHookInstalled = false;

/** Sends a signal to a command's whole group (to the process alone where there are no groups). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Whatever is still running when assay exits is killed: no command outlives the run.
  process.on('exit', () => {
    for (const pid of groups) signalGroup(pid, 'SIGKILL');
  });
}

/**
 * Counts a process group assay started elsewhere (a Python worker) among those killed when assay
 * exits; returns the function that stops counting it.
 */
export function killGroupAtExit(pid: number): () => void {
  installExitHook();
  groups.add(pid);
  return () => {
    groups.delete(pid);
  };
}

/** The pids of the commands still running (for tests and diagnostics). */
export function runningCommands(): number[] {
  return [...groups];
}

/**
 * Runs a program (no shell) with stdin at end of input, collecting its output. When `signal`
 * aborts, the command's group gets SIGTERM, then SIGKILL after KILL_GRACE_MS if it is still there,
 * and the promise settles at once as `abandoned`.
 */
export function runCommand(
  program: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal; maxBuffer: number },
): Promise<CommandEnd> {
  const { signal } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'abandoned' });
  installExitHook();
  return new Promise((settle) => {
    let settled = false;
    const done = (end: CommandEnd): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      settle(end);
    };
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const pid = child.pid;
    if (pid !== undefined) groups.add(pid);
    const stop = (): void => {
      if (pid === undefined || !groups.has(pid)) return;
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (groups.has(pid)) signalGroup(pid, 'SIGKILL');
      }, KILL_GRACE_MS);
      timer.unref();
      // assay does not wait for a command it gave up on (the exit hook kills what is left).
      child.unref();
      child.stdout.destroy();
      child.stderr.destroy();
    };
    function onAbort(): void {
      stop();
      done({ kind: 'abandoned' });
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    let stdout = '';
    let stderr = '';
    let bytes = 0;
    const collect = (chunk: string, into: 'out' | 'err'): void => {
      bytes += Buffer.byteLength(chunk);
      if (bytes > options.maxBuffer) {
        stop();
        done({ kind: 'too-much-output', stderr });
        return;
      }
      if (into === 'out') stdout += chunk;
      else stderr += chunk;
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => collect(chunk, 'out'));
    child.stderr.on('data', (chunk: string) => collect(chunk, 'err'));
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (pid !== undefined) groups.delete(pid);
      done({ kind: 'not-started', error });
    });
    // The command is done when its process exits: what it left running in its group (a child
    // in the background holding its output) is killed, so the call neither waits for it nor
    // leaves it behind; a child that left the group (setsid) still holding the pipes is no
    // longer read after a grace.
    child.once('exit', () => {
      if (pid === undefined || !groups.has(pid)) return;
      signalGroup(pid, 'SIGKILL');
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
      child.once('close', () => clearTimeout(timer));
    });
    child.once('close', (code, sig) => {
      if (pid !== undefined) groups.delete(pid);
      done({ kind: 'exited', code, signal: sig, stdout, stderr });
    });
  });
}
