// `--resume` on the command line: telling a run id from the suite path, and finding the run to continue.
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { findLatestUnfinishedRun } from '../runlog/resume.js';

/**
 * Turns a bare `--resume` into `--resume=` (meaning: the latest unfinished run), unless the next
 * argument is a run id or run directory, so `--resume` never swallows the suite path.
 */
export function normaliseResumeFlag(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== '--resume') {
      out.push(a);
      continue;
    }
    const next = args[i + 1];
    // The next word is the run when it looks like a run id, is a run directory, or names nothing
    // on disk (a mistyped run id must be reported as such, not taken for a second suite).
    if (
      next !== undefined &&
      (/^\d{8}T\d{6}Z-[0-9a-f]+$/.test(next) ||
        existsSync(join(next, 'manifest.json')) ||
        (!next.startsWith('-') && !existsSync(next)))
    ) {
      out.push(`--resume=${next}`);
      i++;
    } else out.push('--resume=');
  }
  return out;
}

/** The run directory to resume: a run id under the runs folder, a run directory, or the latest unfinished one. */
export function resolveResume(value: string, runsDir: string, contentHash: string): string | undefined {
  if (value === '') {
    const latest = findLatestUnfinishedRun(runsDir, contentHash);
    if (!latest)
      process.stderr.write('assay: no unfinished run of this suite to resume; starting a new run\n');
    else process.stderr.write(`assay: resuming ${relative(process.cwd(), latest) || latest}\n`);
    return latest;
  }
  for (const dir of [join(runsDir, value), resolve(value)])
    if (existsSync(join(dir, 'manifest.json'))) return dir;
  throw new InputError(`--resume ${value}: no such run in ${runsDir}`);
}
