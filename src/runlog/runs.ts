// The runs kept under a runs folder (`.assay/runs`), newest first: what `assay runs` lists, what
// `assay view` and `assay report` open by default, and the two runs `assay compare` compares when
// given none. Only manifests are read (and each finished run's scorecard.json for its pass rate), so
// listing a folder of large runs stays quick.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
 * The runs under `runsDir`, newest first (run ids begin with their start time, so they sort by it).
 * A folder whose manifest is damaged is listed with its problem rather than hiding the others.
 */
export function listRuns(runsDir: string): RunListing[] {
  const root = resolve(runsDir);
  if (!existsSync(root)) return [];
  const ids = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, e.name, 'manifest.json')))
    .map((e) => e.name)
    .sort()
    .reverse();
  return ids.map((runId) => {
    const dir = join(root, runId);
    try {
      const manifest = readManifest(dir);
      return { runId, dir, manifest, passRate: scorecardPassRate(dir) };
    } catch (err) {
      return { runId, dir, problem: err instanceof Error ? err.message.split('\n')[0] : String(err) };
    }
  });
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
 * The two runs `assay compare` compares when given none: the newest run, and the newest earlier
 * run of the same suite as the baseline.
 */
export function lastTwoRuns(runsDir: string): { baseline: RunListing; candidate: RunListing } {
  const runs = listRuns(runsDir).filter((r) => r.manifest !== undefined);
  const candidate = runs[0];
  if (!candidate) throw new InputError(`assay compare: no run in ${runsDir}; give BASELINE and CANDIDATE`);
  const baseline = runs.slice(1).find((r) => sameSuite(r.manifest!, candidate.manifest!));
  if (!baseline)
    throw new InputError(
      `assay compare: the newest run ${candidate.runId} (${candidate.manifest!.suite.path}) is the only run of its suite in ${runsDir}; run it again, or give BASELINE and CANDIDATE`,
    );
  return { baseline, candidate };
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
