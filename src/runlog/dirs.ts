import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A folder could not be created; the message says which and why. */
export class DirectoryError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'DirectoryError';
  }
}

/**
 * Creates a folder and its missing parents one level at a time. Node's `mkdirSync(…, {recursive})`
 * can spin forever where mkdir fails with ENOENT under an existing parent (e.g. inside /proc); one
 * level at a time, every failure surfaces at once with its reason.
 */
export function ensureDir(path: string): void {
  const target = resolve(path);
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      if (statSync(current).isDirectory()) break;
      throw new DirectoryError(
        target,
        `cannot create folder ${target}: ${current} exists and is not a folder`,
      );
    } catch (err) {
      if (err instanceof DirectoryError) throw err;
      const parent = dirname(current);
      missing.push(current);
      if (parent === current) break;
      current = parent;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      throw new DirectoryError(
        target,
        `cannot create folder ${target}: ${code ?? (err as Error).message} at ${dir}`,
      );
    }
  }
}
