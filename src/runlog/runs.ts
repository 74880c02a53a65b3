// The runs kept under a runs folder (`.assay/runs`), newest first: what `assay runs` lists, what
// `assay view` and `assay report` open by default, and the two runs `assay compare` compares when
// given none. Only manifests are read (and each finished run's scorecard.json for its pass rate), so
// listing a folder of large runs stays quick.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Counts } from '../core/scorecard.js';
import { readManifest } from './reader.js';
import type { RunManifest } from './types.js';

/** One run of a runs folder, as a listing shows it. */
export interface RunListing {
  runId: string;
  dir: string;
  /** Undefined when the manifest could not be read (`problem` says why). */
  manifest?: RunManifest;
  problem?: string;
  /** The pass rate the run's scorecard gives (errors count as not passed), when it has one. */
  passRate?: number;
}

/**
 * When a run was made, for ordering: its start time (to the millisecond) or last resumption, or the
 * time its id was made when that is later (a merged run starts when its first shard did, but was made after them
 * all). Run ids alone do not order runs: two made in the same second sort at random by their
 * suffix, and a run folder renamed or copied by hand sorts anywhere.
 */
function madeAt(manifest: RunManifest | undefined, name: string): number {
  const stamp = (id: string | undefined): number => {
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(id ?? '');
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NEGATIVE_INFINITY;
  };
  // A resumed run was last made when it was last resumed.
  const times = [manifest?.startedAt, ...(manifest?.resumedAt ?? [])]
    .map((iso) => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  return Math.max(...times, stamp(manifest?.runId ?? name));
}

/**
 * The runs under `runsDir`, newest first (by when each was made, see `madeAt`). A folder whose
 * manifest is damaged is listed with its problem rather than hiding the others. Run folders may be
 * symbolic links; hidden folders (a merge under way) are not runs.
 */
export function listRuns(runsDir: string): RunListing[] {
  const root = resolve(runsDir);
  if (!existsSync(root)) return [];
  if (!statSync(root).isDirectory())
    throw new InputError({
      file: runsDir,
      message: 'expected the folder runs are kept in, found a file',
      severity: 'error',
    });
  const runs = readdirSync(root)
    .filter((name) => !name.startsWith('.') && existsSync(join(root, name, 'manifest.json')))
    .map((runId): RunListing => {
      const dir = join(root, runId);
      try {
        const manifest = readManifest(dir);
        return { runId, dir, manifest, passRate: scorecardPassRate(dir) };
      } catch (err) {
        return { runId, dir, problem: err instanceof Error ? err.message.split('\n')[0] : String(err) };
      }
    });
  const time = new Map(runs.map((r) => [r, madeAt(r.manifest, r.runId)]));
  // A merged run was made after the runs it was merged from, however close their times.
  const byId = new Map(runs.map((r) => [r.manifest?.runId ?? r.runId, r]));
  for (const r of runs)
    for (const id of r.manifest?.mergedFrom ?? []) {
      const source = byId.get(id);
      if (source && time.get(source)! >= time.get(r)!) time.set(r, time.get(source)! + 1);
    }
  return runs.sort(
    (a, b) => time.get(b)! - time.get(a)! || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0),
  );
}

/** The scorecard's pass rate, when the run wrote one (a finished run); undefined otherwise. */
function scorecardPassRate(dir: string): number | undefined {
  const file = join(dir, 'scorecard.json');
  if (!existsSync(file)) return undefined;
  try {
    const card = JSON.parse(readFileSync(file, 'utf8')) as { passRate?: { value?: unknown } };
    return typeof card.passRate?.value === 'number' ? card.passRate.value : undefined;
  } catch {
    return undefined;
  }
}

/** The newest run under `runsDir`; an InputError naming the folder when there is none. */
export function newestRun(runsDir: string, command: string): string {
  const newest = listRuns(runsDir).find((r) => r.manifest !== undefined);
  if (!newest) throw new InputError(`assay ${command}: no run in ${runsDir}; give a run directory or id`);
  return newest.dir;
}

/** Whether two manifests are runs of the same suite (the same suite file, or the same suite id). */
function sameSuite(a: RunManifest, b: RunManifest): boolean {
  return a.suite.path === b.suite.path || (a.suite.id === b.suite.id && a.suite.name === b.suite.name);
}

/**
 * Whether `earlier` is a run to compare `candidate` with: of the same suite and the same shard, and
 * neither a run the candidate was merged from nor a copy of the candidate itself.
 */
function comparable(earlier: RunManifest, candidate: RunManifest): boolean {
  const shard = (m: RunManifest): string => `${m.options.shard?.index ?? 0}/${m.options.shard?.count ?? 1}`;
  return (
    sameSuite(earlier, candidate) &&
    shard(earlier) === shard(candidate) &&
    earlier.runId !== candidate.runId &&
    !(candidate.mergedFrom ?? []).includes(earlier.runId)
  );
}

/**
 * The two runs `assay compare` compares when given none: the newest complete run, and the newest
 * earlier run of the same suite (and shard) as the baseline — a complete one if there is one, never
 * a shard the newest run was merged from. Newer runs that did not complete (a Ctrl-C, a crash, one
 * still running) are passed over and returned as `skipped`, so `compare` right after an interrupted
 * run compares the last two complete ones and says so; with `allowPartial`, or when no run is
 * complete, the newest run is the candidate whatever its state (compare then judges it as a run
 * that is not whole).
 */
export function lastTwoRuns(
  runsDir: string,
  opts: { allowPartial?: boolean } = {},
): { baseline: RunListing; candidate: RunListing; skipped: RunListing[] } {
  const runs = listRuns(runsDir).filter((r) => r.manifest !== undefined);
  if (runs.length === 0) throw new InputError(`compare: no run in ${runsDir}; give BASELINE and CANDIDATE`);
  const whole = opts.allowPartial ? 0 : runs.findIndex((r) => r.manifest!.status === 'complete');
  const at = Math.max(0, whole);
  const candidate = runs[at];
  const skipped = runs.slice(0, at);
  // A run stopped half-way (interrupted, aborted) is a baseline only when no complete one is left.
  const earlier = runs.slice(at + 1).filter((r) => comparable(r.manifest!, candidate.manifest!));
  const baseline = earlier.find((r) => r.manifest!.status === 'complete') ?? earlier[0];
  if (!baseline)
    throw new InputError(
      `compare: the ${at > 0 ? 'newest complete' : 'newest'} run ${candidate.runId} (${candidate.manifest!.suite.path}) is the only run of its suite in ${runsDir}; run it again, or give BASELINE and CANDIDATE`,
    );
  return { baseline, candidate, skipped };
}

/** "3 s", "5 min", "2 h", "4 days": how long ago `iso` was, for listings. */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** The counts of a run as `pass/fail/error`, from its manifest (absent while running). */
export function countsText(counts: Counts | undefined): string {
  return counts ? `${counts.pass}/${counts.fail}/${counts.error}` : '–';
}
