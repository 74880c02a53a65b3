// A run directory is owned by one process at a time: two `--resume` of one run at once would both
// run every missing job. `run.lock` holds the owner's pid; a lock whose process is gone (a crash, a
// kill) is stale and taken over, so a dead owner never holds a run for ever.
import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** Whether a lock naming this pid is held by a live process other than this one. */
function held(owner: number): boolean {
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner);
}

function inUse(runDir: string, owner: number): InputError {
  return new InputError({
    file: runDir,
    message: `this run is in use by process ${owner} (an assay eval or --resume of it); wait for it to end, or stop it`,
    severity: 'error',
  });
}

/** Takes a run directory's lock, or refuses (exit 2) when a live process holds it. */
export function lockRun(runDir: string): RunLock {
  const taken = tryLock(join(runDir, 'run.lock'));
  if (typeof taken === 'number') throw inUse(runDir, taken);
  if (taken) return taken;
  throw new InputError({
    file: runDir,
    message: 'could not take the run lock (run.lock keeps changing)',
    severity: 'error',
  });
}

/**
 * Takes the lock file at `path` (holding this process's pid): the lock, or the pid of the live
 * process that holds it, or undefined when it kept changing hands. A lock whose process is gone
 * is stale and taken over.
 */
export function tryLock(path: string): RunLock | number | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    // The lock appears with its pid already in it (written beside it, then linked into place): a
    // lock created empty and filled after would be read, in between, as one of no live process.
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${process.pid}\n`);
    try {
      linkSync(tmp, path);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(path, 'utf8').trim());
    } catch {
      // gone meanwhile: try again
    }
    if (held(owner)) return owner;
    // Stale: its process is gone. Moved aside rather than removed (of two that try, one moves it),
    // then checked: what was moved may be a lock a contender took since it was read, which is put
    // back — removing it would let both run.
    const aside = `${path}.stale.tmp-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // moved or removed meanwhile: try again
    }
    let moved = Number.NaN;
    try {
      moved = Number(readFileSync(aside, 'utf8').trim());
    } catch {
      // unreadable: stale
    }
    if (moved !== owner && held(moved)) {
      try {
        linkSync(aside, path);
      } catch {
        // taken again meanwhile: that process holds it
      }
      rmSync(aside, { force: true });
      return moved;
    }
    rmSync(aside, { force: true });
  }
  return undefined;
}
