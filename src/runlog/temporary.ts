// The temporary files assay writes before renaming them into place, created so that nothing of
// someone else's is written through or removed: exclusively (never through a symbolic link planted
// at the name), replacing only a regular file an earlier process of this pid left.
import { closeSync, lstatSync, openSync, rmSync, writeSync } from 'node:fs';

/**
 * Creates this process's temporary file `tmp` for writing, exclusively: never through a symbolic
 * link or over another entry (a link planted at the name would have the write land in its target).
 * A regular file already there is one an earlier process of this pid left (a kill: no live process
 * but this one has the pid), and is replaced; anything else there is refused, not removed.
 */
export function openTemporary(tmp: string): number {
  for (let attempt = 0; ; attempt++) {
    try {
      return openSync(tmp, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      let kind: string;
      try {
        const found = lstatSync(tmp);
        kind = found.isFile() ? 'file' : found.isSymbolicLink() ? 'symbolic link' : 'folder or other entry';
      } catch {
        continue; // gone meanwhile
      }
      if (kind !== 'file')
        throw new Error(
          `${tmp} is in the way: a ${kind} assay did not make (it writes a file there); remove it`,
        );
      rmSync(tmp, { force: true });
    }
  }
}

/** Writes `data` to a new temporary file (see openTemporary). */
export function writeTemporary(tmp: string, data: string | Uint8Array): void {
  const fd = openTemporary(tmp);
  try {
    writeAllSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `data` at the file's position: a write may take fewer bytes than it was given (a
 * signal, a pipe, a file system near full), and the rest would otherwise be lost without an error.
 */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) {
    const wrote = writeSync(fd, bytes, at, bytes.length - at);
    if (wrote <= 0) throw new Error(`could not write: the file took ${at} of ${bytes.length} bytes`);
    at += wrote;
  }
}

/** Whether `path` is a regular file itself (not a link to one, not a folder). */
export function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
