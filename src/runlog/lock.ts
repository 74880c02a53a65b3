// A run directory is owned by one process at a time: two `--resume` of one run at once would both
// run every missing job. `run.lock` holds the owner's pid; a lock whose process is gone (a crash, a
// kill) is stale and taken over, so a dead owner never holds a run for ever.
import { linkSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { isRegularFile, writeTemporary } from './temporary.js';

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
 * The temporary files assay writes in a run directory: a run file's name (with a leading dot when
 * written whole beside its target), then `.tmp-<pid>` or, for the log's compaction, `.compact-<pid>`.
 */
const RUN_TEMPORARY =
  /^\.?(?:manifest\.json|scorecard\.json|results\.jsonl|run\.lock|report\.html|compare\.html|lve-recorded\.json)\.(?:tmp|compact)-(\d+)$/;

/**
 * Removes the temporary files a dead process left in a run directory (see RUN_TEMPORARY): only the
 * lock's owner calls this, and only regular files of those names whose process is gone — a
 * folder, a link or a file of another name is not one assay wrote, and is left.
 */
export function cleanLeftovers(runDir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(runDir)) {
    const pid = Number(RUN_TEMPORARY.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    if (!isRegularFile(join(runDir, name))) continue;
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
    message:
      'could not take the run lock: run.lock kept changing hands, or another process is taking over a stale one (run.lock.takeover); try again',
    severity: 'error',
  });
}

/** Sleeps this thread (the lock is taken synchronously, before a run starts). */
const napCell = new Int32Array(new SharedArrayBuffer(4));
function nap(ms: number): void {
  Atomics.wait(napCell, 0, 0, ms);
}

/** Links `from` in at `to`: whether it was created (false when `to` exists). */
function linkIn(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * The pid a lock file holds, or undefined when it is gone. NaN when it is not a lock assay wrote:
 * not a regular file (a folder, a link), or not a pid and a line end (assay's lock appears whole,
 * linked in from a file already holding its pid).
 */
function readOwner(path: string): number | undefined {
  try {
    if (!lstatSync(path).isFile()) return Number.NaN;
    const text = readFileSync(path, 'utf8');
    return /^[1-9]\d*\n$/.test(text) ? Number(text) : Number.NaN;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return Number.NaN;
  }
}

/** A lock file that is not one assay wrote: never taken over (removed), but named. */
function notALock(path: string): InputError {
  return new InputError({
    file: path,
    message:
      'is not a lock assay wrote (it holds no process id, or is not a file), so assay does not remove it; remove it yourself if no assay is using this folder',
    severity: 'error',
  });
}

/** Releases a lock: removes the lock file if it still names this process (nothing else's). */
function releaser(path: string): RunLock {
  return {
    release: () => {
      if (readOwner(path) === process.pid) rmSync(path, { force: true });
    },
  };
}

/** A takeover guard left by a process that died inside the takeover is cleared after this long. */
const DEAD_GUARD_MS = 5_000;

/**
 * Takes the lock file at `path` (holding this process's pid): the lock, or the pid of the live
 * process that holds it, or undefined when it kept changing hands. A lock whose process is gone
 * is stale and taken over.
 *
 * The lock appears with its pid already in it (written beside it, then linked into place, which
 * fails when a lock exists): a lock created empty and filled after would be read, in between, as
 * one of no live process. A stale lock is removed only by the holder of `<path>.takeover` (taken
 * the same way), after reading it again: of contenders that all saw the dead pid, one removes it,
 * and a lock cannot be replaced between that reading and the removal, since nothing but the
 * guard's holder removes a lock it does not own. (Moving the stale lock aside and putting back
 * what turned out live, the earlier way, left two owners when a third linked in between.)
 */
export function tryLock(path: string): RunLock | number | undefined {
  const tmp = `${path}.tmp-${process.pid}`;
  const guard = `${path}.takeover`;
  // Created exclusively: never written through a link planted at the name.
  writeTemporary(tmp, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (attempt > 0) nap(attempt < 10 ? 1 : 10);
      if (linkIn(tmp, path)) return releaser(path);
      const owner = readOwner(path);
      if (owner === undefined) continue; // released meanwhile: try again
      if (Number.isNaN(owner)) throw notALock(path);
      if (held(owner)) return owner;
      // Stale: its process is gone.
      if (!linkIn(tmp, guard)) {
        clearDeadGuard(guard);
        continue; // another process is taking it over: see who holds it next time
      }
      try {
        const now = readOwner(path);
        if (now !== undefined && Number.isNaN(now)) throw notALock(path);
        if (now !== undefined && !held(now)) rmSync(path, { force: true });
        if (linkIn(tmp, path)) return releaser(path);
      } finally {
        rmSync(guard, { force: true });
      }
    }
    return undefined;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Removes a takeover guard whose process died holding it (a kill inside the takeover). */
function clearDeadGuard(guard: string): void {
  try {
    const owner = readOwner(guard);
    // A guard that holds no pid is not one assay wrote: left (the lock then cannot be taken over).
    if (owner === undefined || Number.isNaN(owner) || held(owner) || owner === process.pid) return;
    if (Date.now() - lstatSync(guard).mtimeMs < DEAD_GUARD_MS) return;
    rmSync(guard, { force: true });
  } catch {
    // gone meanwhile
  }
}
