// A run directory is owned by one process at a time: two `--resume` of one run at once would both
// run every missing job. `run.lock` holds the owner's pid; a lock whose process is gone (a crash, a
// kill) is stale and taken over, so a dead owner never holds a run for ever.
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';

/** A held run lock. */
export interface RunLock {
  release(): void;
}

/** Whether a process with this pid exists (ours to signal or not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files a dead process left in a run directory (`*.tmp-<pid>`,
 * `*.compact-<pid>`): only the lock's owner calls this, and only files of processes that are gone.
 */
export function cleanLeftovers(runDir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(runDir)) {
    const pid = Number(/\.(?:tmp|compact)-(\d+)$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    rmSync(join(runDir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Takes a run directory's lock, or refuses (exit 2) when a live process holds it. */
export function lockRun(runDir: string): RunLock {
  const path = join(runDir, 'run.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(path, 'utf8').trim());
    } catch {
      // gone meanwhile: try again
    }
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner))
      throw new InputError({
        file: runDir,
        message: `this run is in use by process ${owner} (an assay eval or --resume of it); wait for it to end, or stop it`,
        severity: 'error',
      });
    rmSync(path, { force: true }); // stale: its process is gone
  }
  throw new InputError({
    file: runDir,
    message: 'could not take the run lock (run.lock keeps changing)',
    severity: 'error',
  });
}
