// Baselines: a pinned copy of a run directory (its log, manifest and scorecard) under a name, so a
// later run can be compared with it. A baseline is only a run directory: whatever reads runs reads
// baselines.
import { copyFileSync, existsSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { ensureDir } from './dirs.js';
import { readManifest } from './reader.js';

/** Where baselines live unless a path is given. */
export const DEFAULT_BASELINES_DIR = '.assay/baselines';

const RUN_FILES = ['manifest.json', 'results.jsonl', 'scorecard.json'];

/** A saved baseline, as `assay baseline list` shows it. */
export interface BaselineInfo {
  name: string;
  dir: string;
  runId: string;
  suite: string;
  startedAt: string;
  status: string;
  jobs: number;
}

function isRunDir(dir: string): boolean {
  return existsSync(join(dir, 'manifest.json')) && existsSync(join(dir, 'results.jsonl'));
}

/**
 * Finds a run: a run directory path, a baseline name (under `baselinesDir`), or a run id (under
 * `runsDir`). Refuses anything else, naming what was looked for.
 */
export function resolveRun(ref: string, dirs: { runsDir: string; baselinesDir: string }): string {
  const candidates = [resolve(ref), join(resolve(dirs.baselinesDir), ref), join(resolve(dirs.runsDir), ref)];
  for (const dir of candidates) if (isRunDir(dir)) return dir;
  throw new InputError(
    `${ref}: no such run (not a run directory, nor a baseline in ${dirs.baselinesDir}, nor a run id in ${dirs.runsDir})`,
  );
}

/** A baseline name: letters, digits, `.`, `_` and `-`, so it is a safe folder name everywhere. */
function checkName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name))
    throw new InputError(
      `--name ${name}: a baseline name is letters, digits, '.', '_' and '-' (at most 100)`,
    );
}

/** Copies a finished run directory to `<baselinesDir>/<name>/` (replacing a baseline of that name). */
export function saveBaseline(runDir: string, name: string, baselinesDir: string): string {
  checkName(name);
  if (!isRunDir(runDir))
    throw new InputError(`${runDir}: not a run directory (no manifest.json and results.jsonl)`);
  const manifest = readManifest(runDir);
  if (manifest.status === 'running')
    throw new InputError(
      `${runDir}: the run is still running (or was killed); finish it with --resume first`,
    );
  const target = join(resolve(baselinesDir), name);
  ensureDir(target);
  for (const file of RUN_FILES) {
    const from = join(runDir, file);
    if (!existsSync(from)) continue;
    // Copied whole to a temporary name, then renamed: a baseline file is never half-written.
    const tmp = join(target, `.${file}.tmp-${process.pid}`);
    copyFileSync(from, tmp);
    renameSync(tmp, join(target, file));
  }
  return target;
}

/** The baselines saved under a folder, newest first. */
export function listBaselines(baselinesDir: string): BaselineInfo[] {
  const root = resolve(baselinesDir);
  if (!existsSync(root)) return [];
  const out: BaselineInfo[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!isRunDir(dir)) continue;
    try {
      const m = readManifest(dir);
      out.push({
        name,
        dir,
        runId: m.runId,
        suite: m.suite.name,
        startedAt: m.startedAt,
        status: m.status,
        jobs: m.counts?.total ?? 0,
      });
    } catch {
      // An unreadable manifest is not a baseline.
    }
  }
  return out.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
}
