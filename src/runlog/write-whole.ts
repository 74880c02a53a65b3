// Every file assay writes for a person (an -o file, a comparison, a regression report, an apastra
// baseline) is written whole to `.NAME.tmp-<pid>` beside it and renamed over it: a kill or a full
// disk mid-write leaves the previous file as it was, never a truncated one that looks valid, and a
// reader that had the old file open keeps reading the old file. Temporaries a killed process left
// beside a target are removed the next time it is written.
import { closeSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ensureDir } from './dirs.js';
import { alive } from './lock.js';
import { isRegularFile, openTemporary, writeAllSync } from './temporary.js';
import { testPauseSync } from './test-pause.js';

/** The temporary file a target is written to before it is renamed into place. */
export function temporaryFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
}

/** Writes a file whole (see the file comment). */
export function writeFileWhole(path: string, data: string | Uint8Array): void {
  ensureDir(dirname(path));
  removeDeadTemporaries(path);
  const tmp = temporaryFor(path);
  let done = false;
  let made = false;
  try {
    const fd = openTemporary(tmp);
    made = true;
    try {
      writeAllSync(fd, data);
    } finally {
      closeSync(fd);
    }
    testPauseSync('write-whole');
    renameSync(tmp, path);
    done = true;
  } finally {
    if (!done && made) rmSync(tmp, { force: true });
  }
}

/**
 * Removes the temporary files of this target (`.NAME.tmp-<pid>`) that a process no longer running
 * left beside it (a kill mid-write): only this target's, only regular files (a folder or a link of
 * that name is not one assay wrote), never other files of its folder.
 */
export function removeDeadTemporaries(path: string): void {
  const prefix = `.${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    const leftover = join(dirname(path), name);
    if (isRegularFile(leftover)) rmSync(leftover, { force: true });
  }
}

export { isRegularFile, openTemporary, writeAllSync, writeTemporary } from './temporary.js';
