// Watching processes from tests: whether one is still running, and waiting (bounded) for an
// observable event — a process gone, a file written, a line printed — never for a fixed delay.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether a process is running (an exited zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited orphan may linger as a zombie until init reaps it; on Linux that counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Polls `check` every 20 ms until it returns a value other than undefined/false, at most `ms`. The
 * bounds here only end a test that has already failed, so they are generous: CI machines are slow
 * and loaded, and a bound a slow machine can reach turns a passing test into a flaky one.
 */
export async function waitFor<T>(check: () => T | undefined | false, ms = 60_000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= end) return undefined;
    await sleep(20);
  }
}

/** Waits (bounded) until the process is gone; true if it is. */
export async function waitUntilGone(pid: number, ms = 30_000): Promise<boolean> {
  return (await waitFor(() => !isRunning(pid), ms)) === true;
}

/**
 * Collects a child's stdout and stderr; `waitForText(re)` resolves when the collected text matches
 * (or rejects when the child closes first, or after `ms`).
 */
export function watchOutput(child: ChildProcess): {
  text: () => string;
  waitForText: (re: RegExp, ms?: number) => Promise<void>;
} {
  let text = '';
  const waiters: { re: RegExp; done: () => void }[] = [];
  const onData = (d: Buffer | string): void => {
    text += d;
    for (const w of [...waiters]) if (w.re.test(text)) w.done();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    text: () => text,
    waitForText: (re, ms = 60_000) =>
      new Promise<void>((resolve, reject) => {
        if (re.test(text)) {
          resolve();
          return;
        }
        const timer = setTimeout(
          () => finish(new Error(`no ${re} in the output within ${ms} ms: ${text}`)),
          ms,
        );
        const onClose = (): void => finish(new Error(`the process ended before printing ${re}: ${text}`));
        const entry = { re, done: () => finish() };
        function finish(err?: Error): void {
          clearTimeout(timer);
          child.off('close', onClose);
          waiters.splice(waiters.indexOf(entry), 1);
          if (err) reject(err);
          else resolve();
        }
        waiters.push(entry);
        child.once('close', onClose);
      }),
  };
}
