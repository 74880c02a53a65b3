// Baselines: a pinned copy of a run directory (its log, manifest and scorecard) under a name, so a
// later run can be compared with it. A baseline is only a run directory: whatever reads runs reads
// baselines.
//
// A saved copy never changes: it is built whole in `<dir>/.store/<name>@<stamp>-<pid>/`, and the
// name `<dir>/<name>` is a symbolic link to it, replaced by one rename. A baseline is therefore
// replaced whole or not at all (a kill at any point leaves the old one or the new one, never one's
// manifest with the other's results), and a reader that resolved the name keeps reading one copy.
// Saves of one name take turns through a lock file (runlog/lock.ts, as a run's).
//
// Assay removes only what it made: each copy holds a marker file naming it, written before anything
// else, and a copy is removed only when it is a real folder (not a link) holding that marker.
// A user's folder in the store (`main@notes`), a link, a file or a folder at a baseline's name that
// assay did not make are never removed or replaced; a store that is itself a link out of the
// baselines folder (moved to a bigger disk) is used, and said.
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../core/errors.js';
import { completenessText, runCompleteness } from './completeness.js';
import { ensureDir } from './dirs.js';
import { tryLock } from './lock.js';
import { readManifest } from './reader.js';
import { writeTemporary } from './temporary.js';
import { testPause } from './test-pause.js';

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
  // A baseline name resolves to the copy it names now: a save that replaces it meanwhile never
  // mixes two copies in one reading.
  for (const dir of candidates) if (isRunDir(dir)) return realpathSync(dir);
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

/** Where saved copies live, beside the names that point at them. */
const STORE = '.store';

/** The file in each saved copy that says assay made it (checked before a copy is ever removed). */
const COPY_MARKER = '.assay-baseline-copy';

function copyMarker(version: string): string {
  return `${JSON.stringify({ assay: 'baseline copy', copy: version })}\n`;
}

/** Whether `path` is a copy assay saved as `version`: a real folder (not a link) holding its marker. */
function isOwnCopy(path: string, version: string): boolean {
  try {
    if (!lstatSync(path).isDirectory()) return false;
    const marker = join(path, COPY_MARKER);
    if (!lstatSync(marker).isFile()) return false;
    return readFileSync(marker, 'utf8') === copyMarker(version);
  } catch {
    return false;
  }
}

/** Whether a link's target is where assay points a baseline name: `.store/<name>@…`. */
function isStoreTarget(target: string, name: string): boolean {
  return dirname(target) === STORE && basename(target).startsWith(`${name}@`);
}

/** What stands at a baseline's name, when it is not something assay made there, in words; else undefined. */
function foreignEntry(link: string, name: string): string | undefined {
  const old = lstatOrUndefined(link);
  if (!old) return undefined;
  if (old.isSymbolicLink()) {
    const target = readlinkSync(link);
    return isStoreTarget(target, name) ? undefined : `a symbolic link to ${target}`;
  }
  // A baseline saved by an older assay was a plain run folder: it is moved into the store, whole.
  if (old.isDirectory()) return isRunDir(link) ? undefined : 'a folder that is not a saved run';
  return 'a file';
}

/**
 * Saves a finished run directory as `<baselinesDir>/<name>` (replacing a baseline of that name
 * whole; see the file comment). A run that is not whole (not complete, one shard, a log shorter
 * than its plan) is refused unless `force`: every later run would be held to the jobs it reached.
 * `onWait` is told the pid of another save of the name, once, when this one has to wait for it.
 */
export async function saveBaseline(
  runDir: string,
  name: string,
  baselinesDir: string,
  opts: {
    force?: boolean;
    onWait?: (pid: number) => void;
    /** Told what the save did beyond the copy (a store that is a link out, an older baseline kept). */
    onNotice?: (text: string) => void;
  } = {},
): Promise<string> {
  const { onWait } = opts;
  checkName(name);
  if (!isRunDir(runDir))
    throw new InputError(`${runDir}: not a run directory (no manifest.json and results.jsonl)`);
  const manifest = readManifest(runDir);
  if (manifest.status === 'running')
    throw new InputError(
      `${runDir}: the run is still running (or was killed); finish it with --resume first`,
    );
  const whole = await runCompleteness(runDir);
  if (!whole.complete && !opts.force)
    throw new InputError(
      `${runDir}: the run is ${completenessText(whole)}, so a baseline of it would hold only the jobs it reached; finish it with assay eval --resume ${whole.runId}, or save it with force`,
    );
  const root = resolve(baselinesDir);
  const store = join(root, STORE);
  const link = join(root, name);
  const refuse = (what: string): InputError =>
    new InputError({
      file: link,
      message: `is ${what}, which assay did not make; nothing was saved (assay replaces only a baseline it saved: move it away, or give another --name)`,
      severity: 'error',
    });
  const before = foreignEntry(link, name);
  if (before) throw refuse(before);
  ensureDir(store);
  // The store may be a link (moved to a bigger disk): used, and said, when it leads out of the folder.
  const real = realpathSync(store);
  const inside = relative(realpathSync(root), real);
  if (
    lstatSync(store).isSymbolicLink() &&
    (inside === '' || inside.startsWith('..') || inside.startsWith(sep))
  )
    opts.onNotice?.(
      `${store} is a link to ${real}: the copies are kept there, and only copies assay saved there are ever removed`,
    );
  const lock = await waitForLock(join(store, `${name}.lock`), name, onWait);
  try {
    // Checked again under the lock: another save may have run meanwhile, and nothing else takes the lock.
    const now = foreignEntry(link, name);
    if (now) throw refuse(now);
    // The swap goes through a new link beside the name: a link a save of this pid left (killed before
    // its swap) is assay's and replaced; anything else at that name is not, and stops the save now.
    const tmpLink = join(root, `.${name}.link-${process.pid}`);
    const stale = lstatOrUndefined(tmpLink);
    if (stale && (!stale.isSymbolicLink() || !isStoreTarget(readlinkSync(tmpLink), name)))
      throw new InputError({
        file: tmpLink,
        message: 'is in the way of the swap, and assay did not make it; nothing was saved (move it away)',
        severity: 'error',
      });
    const version = `${name}@${Date.now().toString(36)}-${process.pid}`;
    const copy = join(store, version);
    mkdirSync(copy);
    // The marker first: a save killed at any point after leaves a copy a later save may remove.
    writeTemporary(join(copy, COPY_MARKER), copyMarker(version));
    for (const file of RUN_FILES) {
      const from = join(runDir, file);
      if (existsSync(from)) copyFileSync(from, join(copy, file));
    }
    await testPause('baseline-save');
    // The swap: the new link beside the name, renamed over it (one directory entry changes).
    if (stale) rmSync(tmpLink, { force: true });
    symlinkSync(join(STORE, version), tmpLink);
    let previous: string | undefined;
    const old = lstatOrUndefined(link);
    if (old?.isSymbolicLink()) previous = resolve(root, readlinkSync(link));
    else if (old?.isDirectory()) {
      // A baseline saved by an older assay (a plain run folder): moved into the store, whole, and
      // kept (it has no marker, so no save removes it).
      previous = join(store, `${name}@legacy-${Date.now().toString(36)}-${process.pid}`);
      renameSync(link, previous);
      opts.onNotice?.(
        `the baseline folder ${link}, saved by an older assay, is kept whole as ${previous}; remove it when nothing reads it`,
      );
    }
    renameSync(tmpLink, link);
    // Copies of this name nothing points at any more (the one before the previous, copies a killed
    // save left): removed, when assay saved them (their marker says so). The previous one stays
    // until the next save, for readers still in it.
    for (const entry of readdirSync(store)) {
      if (!entry.startsWith(`${name}@`)) continue;
      const path = join(store, entry);
      if (path !== copy && path !== previous && isOwnCopy(path, entry))
        rmSync(path, { recursive: true, force: true });
    }
    return link;
  } finally {
    lock.release();
  }
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Takes a name's save lock, waiting (up to 10 minutes) while another live save holds it. */
async function waitForLock(
  path: string,
  name: string,
  onWait: ((pid: number) => void) | undefined,
): Promise<{ release(): void }> {
  let told = false;
  for (let i = 0; i < 12_000; i++) {
    const taken = tryLock(path);
    if (typeof taken === 'object') return taken;
    if (typeof taken === 'number' && !told) {
      onWait?.(taken);
      told = true;
    }
    await sleep(50);
  }
  throw new InputError(`baseline ${name}: another save of it has held its lock for 10 minutes`);
}

/** The baselines saved under a folder, newest first. */
export function listBaselines(baselinesDir: string): BaselineInfo[] {
  const root = resolve(baselinesDir);
  if (!existsSync(root)) return [];
  const out: BaselineInfo[] = [];
  for (const name of readdirSync(root)) {
    // Hidden entries are the store of copies, locks and links being swapped in.
    if (name.startsWith('.')) continue;
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
